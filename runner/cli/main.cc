// The ratchet executable: everything happens in RealMain, so tests can call it in-process.
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return ratchet::RealMain(args, std::cout, std::cerr);
}
