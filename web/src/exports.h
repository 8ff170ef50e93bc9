// What the page's JavaScript (web/wgrt.mjs) calls: plain C functions over
// integer handles, because strings, JSON and MEMFS paths cross the wasm
// boundary simply and the C++ objects stay on this side.
//
// Errors: a call that fails returns 0 (or null) and leaves the message in
// wgrt_web_last_error(); wgrt.mjs turns it into a JavaScript Error. No C++
// exception crosses into JavaScript.
#pragma once

#include <emscripten/emscripten.h>

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace wgrt::web {

// Objects the page holds by number (0 is never a handle).
template <class T>
class HandleTable {
 public:
  int32_t add(T value) {
    const int32_t id = next_++;
    items_.emplace(id, std::make_unique<T>(std::move(value)));
    return id;
  }
  // Throws naming `what` when the page passes a handle it does not hold.
  T& get(int32_t id, const char* what) {
    auto it = items_.find(id);
    if (it == items_.end()) throw std::invalid_argument(std::string("no ") + what + " with handle " + std::to_string(id));
    return *it->second;
  }
  bool remove(int32_t id) { return items_.erase(id) > 0; }

 private:
  int32_t next_ = 1;
  std::map<int32_t, std::unique_ptr<T>> items_;
};

void set_last_error(std::string message);

// Runs `body`, returning its result, or `failed` with the exception's
// message kept for wgrt_web_last_error().
template <class F, class R>
R guarded(F&& body, R failed) {
  try {
    return body();
  } catch (const std::exception& e) {
    set_last_error(e.what());
  } catch (...) {
    set_last_error("unknown C++ exception");
  }
  return failed;
}

// A string returned to JavaScript: valid until the next call that returns one.
const char* returned(std::string text);

}  // namespace wgrt::web
