// red-team probe: the network from native code: socket(AF_INET / AF_INET6 / AF_NETLINK /
// AF_PACKET), a raw socket(2) syscall with junk in the family's upper 32 bits, and a connect to
// 127.0.0.1:22 and 8.8.8.8:53 when a socket opens.
// The sandbox must: refuse every family but AF_UNIX (the filter: EACCES), whatever the upper bits.
// Expected: qualified (ncm's labels), log line "REDTEAM-PROBE net_native: found nothing".
#include <ratchet/method.h>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cstdio>
#include <string>
#include <vector>

namespace {

const char kName[] = "net_native";
int calls = 0;

void Say(const std::string& line) {
  std::fprintf(stderr, "%s\n", line.substr(0, 4000).c_str());
  std::fflush(stderr);
}

// One "REDTEAM-PROBE <name>: found nothing" or "... ESCAPE <what>" line (and a NOTE line).
void Report(const std::vector<std::string>& found, const std::string& note) {
  if (!note.empty()) Say(std::string("REDTEAM-NOTE ") + kName + ": " + note);
  std::string line = std::string("REDTEAM-PROBE ") + kName + ": ";
  if (found.empty()) {
    line += "found nothing";
  } else {
    line += "ESCAPE";
    for (size_t i = 0; i < found.size(); ++i) line += (i ? "; " : " ") + found[i];
  }
  Say(line);
}

// baselines/submissions/ncm.cpp: nearest class mean, about 15% error.
torch::Tensor Ncm(const torch::Tensor& train_x, const torch::Tensor& train_y,
                  const torch::Tensor& test_x) {
  torch::Tensor sums = torch::zeros({10, train_x.size(1)}, train_x.options());
  sums.index_add_(0, train_y, train_x);
  torch::Tensor counts = torch::bincount(train_y, {}, 10).clamp_min(1).to(train_x.scalar_type());
  torch::Tensor means = sums / counts.unsqueeze(1);
  return ((means * means).sum(1).unsqueeze(0) - 2.0 * test_x.mm(means.t())).argmin(1);
}

void Probe() {
  std::vector<std::string> found;
  std::string note;
  struct Family {
    const char* name;
    long family;
    int type;
  } families[] = {{"AF_INET", AF_INET, SOCK_STREAM},
                  {"AF_INET6", AF_INET6, SOCK_STREAM},
                  {"AF_NETLINK", AF_NETLINK, SOCK_RAW},
                  {"AF_PACKET", AF_PACKET, SOCK_RAW},
                  {"AF_INET with upper bits", static_cast<long>(0xffffffff00000002ull), SOCK_STREAM}};
  for (const Family& f : families) {
    long fd = syscall(SYS_socket, f.family, f.type, 0);
    if (fd < 0) {
      note += std::string(f.name) + ": " + strerror(errno) + "; ";
      continue;
    }
    found.push_back(std::string("opened an ") + f.name + " socket");
    if (f.family == AF_INET) {
      for (const char* address : {"127.0.0.1", "8.8.8.8"}) {
        sockaddr_in to{};
        to.sin_family = AF_INET;
        to.sin_port = htons(address[0] == '1' ? 22 : 53);
        inet_pton(AF_INET, address, &to.sin_addr);
        if (connect(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&to), sizeof to) == 0)
          found.push_back(std::string("connected to ") + address);
        else
          note += std::string("connect ") + address + ": " + strerror(errno) + "; ";
      }
    }
    close(static_cast<int>(fd));
  }
  Report(found, note);
}

}  // namespace

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  ++calls;  // 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
  if (calls == 1) Probe();
  return Ncm(train_x, train_y, test_x);
}

RATCHET_METHOD(method)
