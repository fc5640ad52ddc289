// secret_samples.hpp -- fake secrets in the shapes the detectors know.
// Built by concatenation so that this file itself does not look like a
// leaked credential to other scanners.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tgtest {

inline std::string private_key_block() {
  return std::string("-----BEGIN ") + "OPENSSH PRIVATE KEY-----\n" +
         "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" + "-----END " +
         "OPENSSH PRIVATE KEY-----";
}

// (detector, sample) for every pattern detector and high_entropy.
inline std::vector<std::pair<std::string, std::string>> secret_samples() {
  return {
      {"private_key", private_key_block()},
      {"aws_access_key", std::string("AKIA") + "IOSFODNN7EXAMPLE"},
      {"aws_secret_key",
       std::string("aws_secret_access_key = ") + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
      {"github_token", std::string("ghp_") + "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"},
      {"gitlab_token", std::string("glpat-") + "xYz12345AbCdEfGhIjKl"},
      {"slack_token", std::string("xoxb-") + "123456789012-abcdefABCDEF"},
      {"slack_webhook",
       std::string("https://hooks.slack.com/services/") + "T0000/B0000/XXXXXXXXXXXX"},
      {"google_api_key", std::string("AIza") + "SyA1234567890abcdefghijklmnopqrstuv"},
      {"stripe_key", std::string("sk_live_") + "4eC39HqLyjWDarjtT1zdp7dc"},
      {"sk_api_key", std::string("sk-proj-") + "abcdefghijklmnopqrstuvwxyz012345"},
      {"jwt", std::string("eyJhbGciOiJIUzI1NiJ9.") + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." +
                  "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
      {"url_credentials", std::string("https://deploy:") + "hunter2@git.example.com/repo.git"},
      {"high_entropy", std::string("q8Zr3XvB7mN2") + "pL9sKd4FhT6wYc1G"},
  };
}

// Strings that must not trip any detector.
inline std::vector<std::string> clean_samples() {
  return {"hello world",
          "3f786850e387550fdab836ed7e6dc881de23001b",      // a git commit id
          "123e4567-e89b-12d3-a456-426614174000",          // a UUID
          "/usr/local/lib/python3.11/site-packages/x.py",  // a path
          "SomeLongCamelCaseName123456789",                // an identifier
          "https://example.com/a/b?page=2",
          "sk-short"};
}

}  // namespace tgtest
