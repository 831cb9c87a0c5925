#include "profile/counter_map.h"

#include <algorithm>
#include <stdexcept>

#include "common/shared_text.h"

namespace rprof {

const std::string& intern_counter_name(std::string_view name) {
  return SharedText(name).str();  // one pool for every shared text of the process
}

namespace {

bool name_less(const std::string* a, std::string_view b) { return *a < b; }

}  // namespace

CounterMap::CounterMap(std::initializer_list<std::pair<std::string_view, uint64_t>> init) {
  for (const auto& [k, v] : init) insert_or_assign(k, v);
}

CounterMap::CounterMap(const std::map<std::string, uint64_t>& m) {
  if (m.empty()) return;
  Entries& e = rw();
  e.reserve(m.size());
  for (const auto& [k, v] : m) e.push_back(Entry{&intern_counter_name(k), v});  // sorted already
}

const CounterMap::Entries& CounterMap::ro() const {
  static const Entries kEmpty;
  return p_ ? *p_ : kEmpty;
}

CounterMap::Entries& CounterMap::rw() {
  if (!p_) {
    p_ = std::make_shared<Entries>();
  } else if (p_.use_count() > 1) {
    p_ = std::make_shared<Entries>(*p_);
  }
  return *p_;
}

CounterMap::Entries& CounterMap::rw_or_empty() {
  // Iterators of an empty map: begin() == end(), nothing reachable to write.
  static Entries empty;
  return p_ ? rw() : empty;
}

CounterMap::Entries::iterator CounterMap::lower(std::string_view name) {
  Entries& e = rw_or_empty();
  return std::lower_bound(e.begin(), e.end(), name,
                          [](const Entry& x, std::string_view n) { return name_less(x.name, n); });
}

CounterMap::Entries::const_iterator CounterMap::lower(std::string_view name) const {
  const Entries& e = ro();
  return std::lower_bound(e.begin(), e.end(), name,
                          [](const Entry& x, std::string_view n) { return name_less(x.name, n); });
}

uint64_t& CounterMap::operator[](std::string_view name) {
  return emplace(name, 0).first.it_->value;
}

CounterMap::iterator CounterMap::find(std::string_view name) {
  const auto it = lower(name);
  Entries& e = rw_or_empty();
  return iterator(it != e.end() && *it->name == name ? it : e.end());
}

CounterMap::const_iterator CounterMap::find(std::string_view name) const {
  const auto it = lower(name);
  return const_iterator(it != ro().end() && *it->name == name ? it : ro().end());
}

uint64_t& CounterMap::at(std::string_view name) {
  const auto it = find(name);
  if (it == end()) throw std::out_of_range("no counter " + std::string(name));
  return it.it_->value;
}

const uint64_t& CounterMap::at(std::string_view name) const {
  const auto it = find(name);
  if (it == end()) throw std::out_of_range("no counter " + std::string(name));
  return it.it_->value;
}

std::pair<CounterMap::iterator, bool> CounterMap::emplace(std::string_view name, uint64_t value) {
  {
    const auto it = std::as_const(*this).find(name);
    if (it.it_ != ro().end()) {  // there already: this map's own copy, then its element
      const auto at = it.it_ - ro().begin();
      return {iterator(rw().begin() + at), false};
    }
  }
  Entries& e = rw();
  // Grown by a quarter, not doubled: most maps are built once and kept.
  if (e.size() == e.capacity()) e.reserve(e.size() + std::max<size_t>(4, e.size() / 4));
  // Appending in name order (a map built from sorted input) is the fast path.
  if (e.empty() || *e.back().name < name) {
    e.push_back(Entry{&intern_counter_name(name), value});
    return {iterator(e.end() - 1), true};
  }
  const auto it = lower(name);
  return {iterator(e.insert(it, Entry{&intern_counter_name(name), value})), true};
}

std::pair<CounterMap::iterator, bool> CounterMap::insert_or_assign(std::string_view name,
                                                                  uint64_t value) {
  auto r = emplace(name, value);
  if (!r.second) r.first.it_->value = value;
  return r;
}

CounterMap::size_type CounterMap::erase(std::string_view name) {
  if (std::as_const(*this).find(name).it_ == ro().end()) return 0;
  Entries& e = rw();
  e.erase(lower(name));
  return 1;
}

CounterMap::iterator CounterMap::erase(const_iterator pos) {
  // pos is into this map's own copy when it came from non-const find/begin;
  // a const_iterator of a shared copy is mapped to the same position.
  const auto at = pos.it_ - ro().begin();
  Entries& e = rw();
  return iterator(e.erase(e.begin() + at));
}

CounterMap& CounterMap::add(const CounterMap& from) {
  if (from.empty()) return *this;
  if (empty()) {
    p_ = from.p_;  // shared until either changes
    return *this;
  }
  // Both sorted by name: the union's size, then one pass into exactly that.
  const Entries& x = ro();
  const Entries& y = from.ro();
  auto less = [](const Entry& a, const Entry& b) { return *a.name < *b.name; };
  auto merge = [&](auto&& emit) {
    auto a = x.begin();
    auto b = y.begin();
    while (a != x.end() || b != y.end()) {
      if (b == y.end() || (a != x.end() && less(*a, *b))) {
        emit(*a++);
      } else if (a == x.end() || less(*b, *a)) {
        emit(*b++);
      } else {
        emit(Entry{a->name, a->value + b->value});
        ++a;
        ++b;
      }
    }
  };
  size_t n = 0;
  merge([&n](const Entry&) { ++n; });
  auto out = std::make_shared<Entries>();
  out->reserve(n);
  merge([&out](const Entry& e) { out->push_back(e); });
  p_ = std::move(out);
  return *this;
}

CounterMap::const_iterator CounterMap::lower_bound(std::string_view name) const {
  return const_iterator(lower(name));
}

bool CounterMap::operator==(const CounterMap& o) const {
  if (p_ == o.p_) return true;
  // Interned names: equal names are the same pointer.
  return std::equal(ro().begin(), ro().end(), o.ro().begin(), o.ro().end(),
                    [](const Entry& a, const Entry& b) {
                      return a.name == b.name && a.value == b.value;
                    });
}

}  // namespace rprof
