// Which protocol a stdio server speaks: the server/discover probe
// (toolgate::mcp::probe_server), against small /bin/sh servers that answer
// the way each kind of server does.
#include <toolgate/mcp/gateway.hpp>

#include "framing.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

using namespace toolgate::mcp;

namespace {

// A server that reads the probe, writes `answer` lines, then waits for its
// input to close.
std::unique_ptr<ChildProcess> server_answering(const std::string& answer_lines,
                                               const std::string& keep_probe_at = "/dev/null") {
  return ChildProcess::spawn({"/bin/sh", "-c",
                              "read line; printf '%s\\n' \"$line\" > " + keep_probe_at +
                                  "; printf '" + answer_lines + "'; cat > /dev/null"});
}

constexpr std::chrono::milliseconds quick{5000};

}  // namespace

TEST(McpServerProbe, ADiscoverResultNamingTheVersionMeansModernAndIsKeptAsItCame) {
  const std::string probe_file = ::testing::TempDir() + "probe-request.json";
  // A notification before the answer is not the answer; the line after it
  // is left for the gateway's reader.
  auto s = server_answering(
      R"({"jsonrpc":"2.0","method":"notifications/message","params":{}}\n)"
      R"({"jsonrpc":"2.0","id":"toolgate-probe","result":{"resultType":"complete",)"
      R"("supportedVersions":["2025-11-25","2026-07-28"],"capabilities":{"tools":{}},"n":5E-1}}\n)"
      R"({"jsonrpc":"2.0","method":"next"}\n)",
      probe_file);
  auto p = probe_server(*s, quick);
  EXPECT_EQ(p.outcome, ServerProbe::Outcome::modern) << p.detail;
  EXPECT_TRUE(p.protocol.modern);
  EXPECT_EQ(p.protocol.discover_result,
            R"({"resultType":"complete","supportedVersions":["2025-11-25","2026-07-28"],)"
            R"("capabilities":{"tools":{}},"n":5E-1})");
  LineReader rest(s->stdout_fd(), 1 << 20);
  auto next = rest.next();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->text, R"({"jsonrpc":"2.0","method":"next"})");
  std::ifstream f(probe_file);
  std::stringstream sent;
  sent << f.rdbuf();
  EXPECT_NE(sent.str().find(R"("method":"server/discover")"), std::string::npos) << sent.str();
  EXPECT_NE(sent.str().find(R"("io.modelcontextprotocol/protocolVersion":"2026-07-28")"),
            std::string::npos)
      << sent.str();
  EXPECT_NE(sent.str().find(R"("io.modelcontextprotocol/clientCapabilities":{})"),
            std::string::npos)
      << sent.str();
}

TEST(McpServerProbe, AnyOtherErrorOrSilenceMeansTheOlderProtocol) {
  auto refused = server_answering(
      R"({"jsonrpc":"2.0","id":"toolgate-probe","error":{"code":-32601,"message":"Method not found"}}\n)");
  auto p = probe_server(*refused, quick);
  EXPECT_EQ(p.outcome, ServerProbe::Outcome::legacy);
  EXPECT_NE(p.detail.find("Method not found"), std::string::npos) << p.detail;
  EXPECT_FALSE(p.protocol.modern);

  auto silent = server_answering("");
  auto q = probe_server(*silent, std::chrono::milliseconds(200));
  EXPECT_EQ(q.outcome, ServerProbe::Outcome::no_answer);
  EXPECT_FALSE(q.protocol.modern);
  EXPECT_NE(q.detail.find("did not answer server/discover within 200 ms"), std::string::npos)
      << q.detail;
}

TEST(McpServerProbe, AServerOfTheNewEraWithoutTheVersionIsNoFallback) {
  auto error = server_answering(
      R"({"jsonrpc":"2.0","id":"toolgate-probe","error":{"code":-32022,"message":"Unsupported",)"
      R"("data":{"supported":["2027-01-01"],"requested":"2026-07-28"}}}\n)");
  auto p = probe_server(*error, quick);
  EXPECT_EQ(p.outcome, ServerProbe::Outcome::unsupported);
  EXPECT_NE(p.detail.find(R"(["2027-01-01"])"), std::string::npos) << p.detail;

  auto other = server_answering(
      R"({"jsonrpc":"2.0","id":"toolgate-probe","result":{"supportedVersions":["2027-01-01"]}}\n)");
  EXPECT_EQ(probe_server(*other, quick).outcome, ServerProbe::Outcome::unsupported);
}

TEST(McpServerProbe, AServerThatEndsWhenProbedIsReportedSo) {
  auto s = ChildProcess::spawn({"/bin/sh", "-c", "read line; exit 3"});
  auto p = probe_server(*s, quick);
  EXPECT_EQ(p.outcome, ServerProbe::Outcome::exited);
  EXPECT_NE(p.detail.find("exited with status 3"), std::string::npos) << p.detail;
}
