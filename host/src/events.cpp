#include <toolgate/events.hpp>

#include <boost/json/serialize.hpp>

namespace toolgate {

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

void JsonLinesSink::operator()(const Event& e) {
  std::string line = boost::json::serialize(e.to_json());
  line.push_back('\n');
  std::lock_guard lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), out_);
  if (flush_each_) std::fflush(out_);
}

}  // namespace toolgate
