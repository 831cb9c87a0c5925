// SharedText: an immutable string held once per distinct value for the
// process's life, a pointer's size. For the texts the analysis attaches to
// every region that are the same in most of them (where a count came from,
// why a view does not apply): 100,000 regions then hold 100,000 pointers,
// not 100,000 copies. A verdict holds no text: its kind and numbers are
// worded when a writer renders it (report/verdict_words).
#ifndef RPROF_COMMON_SHARED_TEXT_H_
#define RPROF_COMMON_SHARED_TEXT_H_

#include <fmt/format.h>

#include <ostream>
#include <string>
#include <string_view>

namespace rprof {

class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string_view s);  // NOLINT: implicit, as std::string's
  SharedText(const std::string& s) : SharedText(std::string_view(s)) {}  // NOLINT
  SharedText(const char* s) : SharedText(std::string_view(s)) {}         // NOLINT

  const std::string& str() const { return *p_; }
  operator const std::string&() const { return *p_; }  // NOLINT
  const char* c_str() const { return p_->c_str(); }
  bool empty() const { return p_->empty(); }
  size_t size() const { return p_->size(); }
  size_t find(std::string_view s, size_t pos = 0) const { return p_->find(s, pos); }

  // Equal texts share one string, so equality is the pointer's.
  friend bool operator==(const SharedText& a, const SharedText& b) { return a.p_ == b.p_; }
  friend bool operator!=(const SharedText& a, const SharedText& b) { return a.p_ != b.p_; }
  friend bool operator==(const SharedText& a, const char* b) { return *a.p_ == b; }
  friend bool operator!=(const SharedText& a, const char* b) { return *a.p_ != b; }
  friend bool operator==(const SharedText& a, const std::string& b) { return *a.p_ == b; }
  friend bool operator!=(const SharedText& a, const std::string& b) { return *a.p_ != b; }
  friend std::string operator+(const SharedText& a, std::string_view b) {
    return std::string(*a.p_).append(b);
  }
  friend std::string operator+(std::string_view a, const SharedText& b) {
    return std::string(a).append(*b.p_);
  }
  friend std::ostream& operator<<(std::ostream& os, const SharedText& t) { return os << *t.p_; }

 private:
  const std::string* p_ = &empty_text();
  static const std::string& empty_text();
};

}  // namespace rprof

template <>
struct fmt::formatter<rprof::SharedText> : fmt::formatter<std::string_view> {
  template <class Context>
  auto format(const rprof::SharedText& t, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(t.str(), ctx);
  }
};

#endif  // RPROF_COMMON_SHARED_TEXT_H_
