#include "profile/counter_map.h"

#include <algorithm>
#include <mutex>
#include <set>
#include <stdexcept>

namespace rprof {

const std::string& intern_counter_name(std::string_view name) {
  // Node-based: a name's address never changes. Never freed: the names are
  // few (each backend's counter set) and every map of the process uses them.
  static std::mutex mu;
  static auto* names = new std::set<std::string, std::less<>>();
  const std::lock_guard<std::mutex> lock(mu);
  auto it = names->find(name);
  if (it == names->end()) it = names->emplace(name).first;
  return *it;
}

CounterMap::CounterMap(std::initializer_list<std::pair<std::string_view, uint64_t>> init) {
  for (const auto& [k, v] : init) insert_or_assign(k, v);
}

CounterMap::CounterMap(const std::map<std::string, uint64_t>& m) {
  e_.reserve(m.size());
  for (const auto& [k, v] : m) e_.push_back(Entry{&intern_counter_name(k), v});  // sorted already
}

CounterMap::Entries::iterator CounterMap::lower(std::string_view name) {
  return std::lower_bound(e_.begin(), e_.end(), name,
                          [](const Entry& e, std::string_view n) { return *e.name < n; });
}

CounterMap::Entries::const_iterator CounterMap::lower(std::string_view name) const {
  return std::lower_bound(e_.begin(), e_.end(), name,
                          [](const Entry& e, std::string_view n) { return *e.name < n; });
}

uint64_t& CounterMap::operator[](std::string_view name) {
  return emplace(name, 0).first.it_->value;
}

CounterMap::iterator CounterMap::find(std::string_view name) {
  const auto it = lower(name);
  return iterator(it != e_.end() && *it->name == name ? it : e_.end());
}

CounterMap::const_iterator CounterMap::find(std::string_view name) const {
  const auto it = lower(name);
  return const_iterator(it != e_.end() && *it->name == name ? it : e_.end());
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
  // Appending in name order (a map built from sorted input) is the fast path.
  // Grown by a quarter, not doubled: most maps are built once and kept.
  if (e_.size() == e_.capacity()) e_.reserve(e_.size() + std::max<size_t>(4, e_.size() / 4));
  if (e_.empty() || *e_.back().name < name) {
    e_.push_back(Entry{&intern_counter_name(name), value});
    return {iterator(e_.end() - 1), true};
  }
  const auto it = lower(name);
  if (it != e_.end() && *it->name == name) return {iterator(it), false};
  return {iterator(e_.insert(it, Entry{&intern_counter_name(name), value})), true};
}

std::pair<CounterMap::iterator, bool> CounterMap::insert_or_assign(std::string_view name,
                                                                  uint64_t value) {
  auto r = emplace(name, value);
  if (!r.second) r.first.it_->value = value;
  return r;
}

CounterMap::size_type CounterMap::erase(std::string_view name) {
  const auto it = lower(name);
  if (it == e_.end() || *it->name != name) return 0;
  e_.erase(it);
  return 1;
}

CounterMap::iterator CounterMap::erase(const_iterator pos) {
  return iterator(e_.erase(pos.it_));
}

CounterMap& CounterMap::add(const CounterMap& from) {
  if (e_.empty()) {
    e_ = from.e_;  // the exact size: no growth slack
    return *this;
  }
  // Both sorted by name: the union's size, then one pass into exactly that.
  auto less = [](const Entry& a, const Entry& b) { return *a.name < *b.name; };
  auto merge = [&](auto&& emit) {
    auto a = e_.begin();
    auto b = from.e_.begin();
    while (a != e_.end() || b != from.e_.end()) {
      if (b == from.e_.end() || (a != e_.end() && less(*a, *b))) {
        emit(*a++);
      } else if (a == e_.end() || less(*b, *a)) {
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
  Entries out;
  out.reserve(n);
  merge([&out](const Entry& e) { out.push_back(e); });
  e_ = std::move(out);
  return *this;
}

CounterMap::const_iterator CounterMap::lower_bound(std::string_view name) const {
  return const_iterator(lower(name));
}

bool CounterMap::operator==(const CounterMap& o) const {
  // Interned names: equal names are the same pointer.
  return std::equal(e_.begin(), e_.end(), o.e_.begin(), o.e_.end(),
                    [](const Entry& a, const Entry& b) {
                      return a.name == b.name && a.value == b.value;
                    });
}

}  // namespace rprof
