// Which resource URIs a server's URI template describes
// (host/mcp/src/uri_template.hpp), for routing reads in a server group.
#include "uri_template.hpp"

#include <gtest/gtest.h>

#include <string>

using toolgate::mcp::uri_template_matches;

TEST(McpUriTemplate, SegmentsReservedExpansionAndQueries) {
  EXPECT_TRUE(uri_template_matches("raw://items/{id}", "raw://items/42"));
  EXPECT_FALSE(uri_template_matches("raw://items/{id}", "raw://items/42/more"));
  EXPECT_FALSE(uri_template_matches("raw://items/{id}", "raw://other/42"));
  EXPECT_TRUE(uri_template_matches("raw://items/{id}", "raw://items/"));  // an empty value
  EXPECT_TRUE(uri_template_matches("file:///{+path}", "file:///home/me/a.txt"));
  EXPECT_TRUE(uri_template_matches("db://{table}/{id}.json", "db://users/7.json"));
  EXPECT_FALSE(uri_template_matches("db://{table}/{id}.json", "db://users/7.txt"));
  EXPECT_TRUE(uri_template_matches("search://q{?term,page}", "search://q?term=x&page=2"));
  EXPECT_TRUE(uri_template_matches("search://q{?term}", "search://q"));
  EXPECT_FALSE(uri_template_matches("search://q{?term}", "search://qx"));
  EXPECT_TRUE(uri_template_matches("exact://only", "exact://only"));
  EXPECT_FALSE(uri_template_matches("exact://only", "exact://only2"));
  EXPECT_FALSE(uri_template_matches("broken://{id", "broken://{id"));
}

TEST(McpUriTemplate, ATemplateThatWouldTakeLongDoesNotMatch) {
  // Many adjacent expressions over a long URI that does not end as the
  // template does: the work is bounded, and the answer is no.
  std::string tmpl = "x://";
  for (int i = 0; i < 30; ++i) tmpl += "{+a" + std::to_string(i) + "}";
  tmpl += "!";
  EXPECT_FALSE(uri_template_matches(tmpl, "x://" + std::string(200, 'a')));
}
