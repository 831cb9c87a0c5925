! rprof: the Fortran module (gfortran). Regions are opened and closed by name:
!
!   use rprof
!   call rprof_begin("triad")
!   call rprof_work(2d0 * n, 24d0 * n)   ! optional: ideal FLOPs (FMA = 2), bytes
!   ...
!   call rprof_end("triad")
!
! Build with `pkg-config --cflags --libs rprof-fortran` or the CMake target
! rprof::fortran. Nothing needs compiling away: a program not run under the
! `rprof` launcher records nothing, and each call costs a branch in the
! runtime. Every routine takes an optional `status` (0 = ok, 1 = inactive,
! negative = error; the codes of <rprof/rprof.h>). Names keep their trailing
! blanks out (trim) and are limited to 1024 bytes.
module rprof
  use, intrinsic :: iso_c_binding, only: c_char, c_double, c_int, c_null_char
  implicit none
  private
  public :: rprof_begin, rprof_end, rprof_work, rprof_flush, rprof_active

  integer, parameter :: max_name = 1024

  interface
    function c_begin(name) bind(C, name="rprof_begin") result(rc)
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: rc
    end function c_begin
    function c_end(name) bind(C, name="rprof_end") result(rc)
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: rc
    end function c_end
    function c_work(flops, bytes) bind(C, name="rprof_work") result(rc)
      import :: c_double, c_int
      real(c_double), value :: flops, bytes
      integer(c_int) :: rc
    end function c_work
    function c_flush() bind(C, name="rprof_flush") result(rc)
      import :: c_int
      integer(c_int) :: rc
    end function c_flush
    function c_active() bind(C, name="rprof_active") result(rc)
      import :: c_int
      integer(c_int) :: rc
    end function c_active
  end interface

contains

  ! name, without trailing blanks, NUL-terminated in buf (no allocation).
  subroutine to_c(name, buf)
    character(len=*), intent(in) :: name
    character(kind=c_char, len=max_name + 1), intent(out) :: buf
    integer :: n
    n = min(len_trim(name), max_name)
    buf(1:n) = name(1:n)
    buf(n + 1:n + 1) = c_null_char
  end subroutine to_c

  subroutine rprof_begin(name, status)
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: status
    character(kind=c_char, len=max_name + 1) :: buf
    integer(c_int) :: rc
    call to_c(name, buf)
    rc = c_begin(buf)
    if (present(status)) status = int(rc)
  end subroutine rprof_begin

  subroutine rprof_end(name, status)
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: status
    character(kind=c_char, len=max_name + 1) :: buf
    integer(c_int) :: rc
    call to_c(name, buf)
    rc = c_end(buf)
    if (present(status)) status = int(rc)
  end subroutine rprof_end

  ! The ideal work of the innermost open region, once per call of it: flops
  ! under FMA = 2 FLOPs, bytes = every operand crossing the boundary once.
  subroutine rprof_work(flops, bytes, status)
    real(c_double), intent(in) :: flops, bytes
    integer, intent(out), optional :: status
    integer(c_int) :: rc
    rc = c_work(flops, bytes)
    if (present(status)) status = int(rc)
  end subroutine rprof_work

  ! Writes the raw profile now (it is also written at exit).
  subroutine rprof_flush(status)
    integer, intent(out), optional :: status
    integer(c_int) :: rc
    rc = c_flush()
    if (present(status)) status = int(rc)
  end subroutine rprof_flush

  ! .true. when the program runs under `rprof` and regions are recorded.
  logical function rprof_active()
    rprof_active = c_active() /= 0
  end function rprof_active

end module rprof
