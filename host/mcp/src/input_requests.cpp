#include "input_requests.hpp"

#include "raw_json.hpp"

#include <toolgate/json.hpp>

#include <stdexcept>

namespace toolgate::mcp {

namespace json = boost::json;

bool is_input_required(const json::object& result) {
  const auto* type = result.if_contains("resultType");
  return type && type->is_string() && type->get_string() == "input_required";
}

std::string_view capability_for(std::string_view method) {
  if (method == "elicitation/create") return "elicitation";
  if (method == "sampling/createMessage") return "sampling";
  if (method == "roots/list") return "roots";
  return {};
}

InputRequired read_input_required(const json::object& result, std::string_view result_text,
                                  const json::object& answerable, QuestionsOf of) {
  InputRequired out;
  const auto* state = result.if_contains("requestState");
  if (state) {
    if (!state->is_string()) throw std::invalid_argument("its requestState is not a string");
    out.request_state = std::string(state->get_string());
  }
  const auto* requests = result.if_contains("inputRequests");
  if (!requests && !state)
    throw std::invalid_argument("it has neither inputRequests nor requestState");
  if (!requests) return out;
  if (!requests->is_object()) throw std::invalid_argument("its inputRequests is not an object");
  // The text of the map, so that each question's params reach the client
  // with the bytes the server wrote.
  std::string map_text;
  if (!result_text.empty())
    if (auto span = find_member(result_text, 0, "inputRequests"))
      map_text = std::string(span->value.of(result_text));
  for (const auto& kv : requests->get_object()) {
    const std::string key(kv.key());
    // The gateway's own questions are named so (its approval): a server's
    // question must not pose as one.
    if (of == QuestionsOf::server && key.starts_with("toolgate/"))
      throw std::invalid_argument("its input request \"" + key +
                                  "\" is named like one of toolgate's own questions");
    const auto* q = kv.value().if_object();
    const auto* method = q ? q->if_contains("method") : nullptr;
    if (!method || !method->is_string())
      throw std::invalid_argument("its input request \"" + key + "\" has no method");
    const std::string_view m = method->get_string();
    const auto capability = capability_for(m);
    if (capability.empty())
      throw std::invalid_argument("its input request \"" + key + "\" is " + std::string(m) +
                                  ", which is not a question a server may ask (elicitation/create, "
                                  "sampling/createMessage or roots/list)");
    if (!answerable.contains(capability))
      throw std::invalid_argument("its input request \"" + key + "\" is " + std::string(m) +
                                  ", which the client did not declare it can answer");
    const auto* params = q->if_contains("params");
    if (params && !params->is_object())
      throw std::invalid_argument("the params of its input request \"" + key +
                                  "\" are not an object");
    InputRequest r{key, std::string(m), params ? params->get_object() : json::object{}, {}};
    if (params && !map_text.empty())
      if (auto question = find_member(map_text, 0, key))
        if (map_text[question->value.begin] == '{')
          if (auto p = find_member(map_text, question->value.begin, "params"))
            r.params_text = std::string(p->value.of(map_text));
    out.requests.push_back(std::move(r));
  }
  return out;
}

json::object answerable_capabilities(const json::object* declared) {
  json::object out;
  if (!declared) return out;
  for (const char* capability : {"elicitation", "sampling", "roots"})
    if (const auto* c = declared->if_contains(capability); c && c->is_object())
      out[capability] = *c;
  return out;
}

std::string with_input_responses(std::string_view params_text,
                                 const std::vector<std::pair<std::string, std::string>>& answers,
                                 const std::optional<std::string>& request_state) {
  std::string text(params_text);
  if (request_state)
    text = insert_first_member(text, 0, R"("requestState")",
                               to_json_text(json::value(json::string(*request_state))));
  std::string map = "{";
  for (const auto& [key, answer] : answers) {
    if (map.size() > 1) map += ',';
    map += to_json_text(json::value(json::string(key)));
    map += ':';
    map += answer;
  }
  map += '}';
  return insert_first_member(text, 0, R"("inputResponses")", map);
}

}  // namespace toolgate::mcp
