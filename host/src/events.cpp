#include <toolgate/events.hpp>
#include <toolgate/json.hpp>

#include <spdlog/spdlog.h>
#include <boost/json/serialize.hpp>

#include <cerrno>
#include <cstring>

namespace toolgate {

bool reserved_event_type(std::string_view t) {
  for (std::string_view p :
       {"tool/", "tools/", "hook/", "approval/", "plugin/", "batch/", "observer/", "fs/"})
    if (t.starts_with(p)) return true;
  return false;
}

boost::json::object Event::to_json() const {
  boost::json::object o;
  o["seq"] = sequence;
  o["type"] = type;
  if (!session_id.empty()) o["session"] = session_id;
  if (!call_id.empty()) o["call"] = call_id;
  o["generation"] = generation;
  o["data"] = data;
  return o;
}

void JsonLinesSink::report(int err) {
  if (!error_.empty()) return;
  error_ = "cannot write the event log" + (name_.empty() ? std::string() : " " + name_) + ": " +
           (err ? std::strerror(err) : "write error");
  spdlog::error("{}; events are being lost", error_);
}

void JsonLinesSink::operator()(const Event& e) {
  std::string line = to_json_text(e.to_json());
  line.push_back('\n');
  std::lock_guard lock(mutex_);
  errno = 0;
  if (std::fwrite(line.data(), 1, line.size(), out_) != line.size() ||
      (flush_each_ && std::fflush(out_) != 0) || std::ferror(out_))
    report(errno);
}

bool JsonLinesSink::flush() {
  std::lock_guard lock(mutex_);
  errno = 0;
  if (std::fflush(out_) != 0 || std::ferror(out_)) report(errno);
  return error_.empty();
}

bool JsonLinesSink::failed() const {
  std::lock_guard lock(mutex_);
  return !error_.empty();
}

std::string JsonLinesSink::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

}  // namespace toolgate
