! rprof: LIKWID's Fortran module `likwid` (marker API), for programs built
! against rprof alone (`pkg-config rprof-likwid`). The interfaces match
! LIKWID 5's likwid.f90; the procedures are librprof-likwid's
! likwid_marker*_ entry points. The names are LIKWID's: that is the purpose.
module likwid
  implicit none
  interface
    subroutine likwid_markerInit()
    end subroutine likwid_markerInit
    subroutine likwid_markerThreadInit()
    end subroutine likwid_markerThreadInit
    subroutine likwid_markerNextGroup()
    end subroutine likwid_markerNextGroup
    subroutine likwid_markerClose()
    end subroutine likwid_markerClose
    subroutine likwid_markerRegisterRegion(regionTag)
      character(*) :: regionTag
    end subroutine likwid_markerRegisterRegion
    subroutine likwid_markerStartRegion(regionTag)
      character(*) :: regionTag
    end subroutine likwid_markerStartRegion
    subroutine likwid_markerStopRegion(regionTag)
      character(*) :: regionTag
    end subroutine likwid_markerStopRegion
    subroutine likwid_markerResetRegion(regionTag)
      character(*) :: regionTag
    end subroutine likwid_markerResetRegion
    subroutine likwid_markerGetRegion(regionTag, nr_events, events, time, count)
      character(*) :: regionTag
      integer :: nr_events
      double precision, dimension(*) :: events
      double precision :: time
      integer :: count
    end subroutine likwid_markerGetRegion
  end interface
end module likwid
