// The ratchet executable: everything happens in RealMain, so tests can call it in-process. What
// it prints goes through EscapingStream: a submission's words never reach the terminal raw.
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/escaping_stream.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  ratchet::EscapingStream out(std::cout), err(std::cerr);
  const int code = ratchet::RealMain(args, out, err);
  out.flush();
  err.flush();
  return code;
}
