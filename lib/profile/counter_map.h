// Counters by name, as kept in every region, thread row and function of a
// profile: a flat vector sorted by name, each name interned once for the
// whole process. A profile of 100,000 regions holds tens of millions of
// counters: as std::map<std::string, uint64_t> each took a tree node of 72
// bytes plus the allocator's 16 (and its name again when over 15 characters);
// here 16 bytes, with no allocation per counter (bench/RESULTS-scale.md).
//
// The interface is std::map's where the code uses it: iteration in name
// order yields pairs (first: the name, second: the count, a reference into
// the map), operator[] inserts a zero, find/count/at/erase/emplace. Lookups
// take any string (std::string_view); an element's name stays valid for the
// life of the process. Copies share their counters until one of them
// changes (copy on write): not for use by two threads at once.
#ifndef RPROF_PROFILE_COUNTER_MAP_H_
#define RPROF_PROFILE_COUNTER_MAP_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rprof {

// The one copy of a counter name, valid until the process exits (a
// SharedText, common/shared_text.h).
const std::string& intern_counter_name(std::string_view name);

class CounterMap {
  struct Entry {
    const std::string* name;
    uint64_t value;
  };
  using Entries = std::vector<Entry>;

  template <class VecIt, class Count>
  class Iter {
   public:
    using reference = std::pair<const std::string&, Count&>;
    using value_type = std::pair<const std::string, uint64_t>;
    using difference_type = std::ptrdiff_t;
    using iterator_category = std::bidirectional_iterator_tag;
    struct Arrow {
      reference r;
      const reference* operator->() const { return &r; }
    };
    using pointer = Arrow;

    Iter() = default;
    explicit Iter(VecIt it) : it_(it) {}
    // iterator -> const_iterator
    template <class V2, class C2>
    Iter(const Iter<V2, C2>& o) : it_(o.it_) {}  // NOLINT(google-explicit-constructor)

    reference operator*() const { return reference(*it_->name, it_->value); }
    Arrow operator->() const { return Arrow{**this}; }
    Iter& operator++() {
      ++it_;
      return *this;
    }
    Iter operator++(int) {
      Iter t = *this;
      ++it_;
      return t;
    }
    Iter& operator--() {
      --it_;
      return *this;
    }
    Iter operator--(int) {
      Iter t = *this;
      --it_;
      return t;
    }
    template <class V2, class C2>
    bool operator==(const Iter<V2, C2>& o) const {
      return it_ == o.it_;
    }
    template <class V2, class C2>
    bool operator!=(const Iter<V2, C2>& o) const {
      return it_ != o.it_;
    }

   private:
    template <class, class>
    friend class Iter;
    friend class CounterMap;
    VecIt it_{};
  };

 public:
  using key_type = std::string;
  using mapped_type = uint64_t;
  using value_type = std::pair<const std::string, uint64_t>;
  using size_type = std::size_t;
  using iterator = Iter<Entries::iterator, uint64_t>;
  using const_iterator = Iter<Entries::const_iterator, const uint64_t>;

  CounterMap() = default;
  CounterMap(std::initializer_list<std::pair<std::string_view, uint64_t>> init);
  explicit CounterMap(const std::map<std::string, uint64_t>& m);

  size_type size() const { return ro().size(); }
  bool empty() const { return ro().empty(); }
  void clear() { p_.reset(); }

  // Non-const iteration gives the map its own copy first (copy on write).
  iterator begin() { return iterator(rw_or_empty().begin()); }
  iterator end() { return iterator(rw_or_empty().end()); }
  const_iterator begin() const { return const_iterator(ro().begin()); }
  const_iterator end() const { return const_iterator(ro().end()); }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }

  // The count of `name`, inserted as 0 when absent.
  uint64_t& operator[](std::string_view name);
  iterator find(std::string_view name);
  const_iterator find(std::string_view name) const;
  size_type count(std::string_view name) const { return find(name) != end() ? 1 : 0; }
  bool contains(std::string_view name) const { return find(name) != end(); }
  // Throws std::out_of_range when absent.
  uint64_t& at(std::string_view name);
  const uint64_t& at(std::string_view name) const;

  // Inserts (name, value) unless the name is there; as std::map::emplace.
  std::pair<iterator, bool> emplace(std::string_view name, uint64_t value);
  std::pair<iterator, bool> insert(const std::pair<std::string_view, uint64_t>& kv) {
    return emplace(kv.first, kv.second);
  }
  // Each (name, count) of [first, last) whose name is not there yet.
  template <class It>
  void insert(It first, It last) {
    for (; first != last; ++first) {
      const auto& kv = *first;
      emplace(kv.first, kv.second);
    }
  }
  std::pair<iterator, bool> try_emplace(std::string_view name, uint64_t value = 0) {
    return emplace(name, value);
  }
  std::pair<iterator, bool> insert_or_assign(std::string_view name, uint64_t value);
  size_type erase(std::string_view name);
  iterator erase(const_iterator pos);

  // The first element whose name is not less than `name`.
  const_iterator lower_bound(std::string_view name) const;

  bool operator==(const CounterMap& o) const;
  bool operator!=(const CounterMap& o) const { return !(*this == o); }

  // Adds each count of `from` to this map's (a name absent here starts at 0).
  CounterMap& add(const CounterMap& from);

  // Keeps capacity for n counters (merging profiles of the same backend).
  void reserve(size_type n) {
    if (n > 0) rw().reserve(n);
  }

  // Whether this map and o hold one copy of their counters (a copy of a map
  // shares it until either changes).
  bool shares_with(const CounterMap& o) const { return p_ != nullptr && p_ == o.p_; }

 private:
  const Entries& ro() const;
  Entries& rw();            // this map's own copy, made when shared or absent
  Entries& rw_or_empty();   // rw(), or a shared empty vector when empty
  Entries::iterator lower(std::string_view name);
  Entries::const_iterator lower(std::string_view name) const;

  // Sorted by *name; names interned, so equal names share a pointer. Shared
  // between copies (a region's inclusive and exclusive counters of a leaf,
  // its one thread row's): a profile of 100,000 regions keeps one copy where
  // the three are equal. Null: empty.
  std::shared_ptr<Entries> p_;
};

}  // namespace rprof

#endif  // RPROF_PROFILE_COUNTER_MAP_H_
