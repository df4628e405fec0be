// red-team: a compile error whose message holds raw terminal escape sequences: the #error line
// below carries ESC (0x1b) and BEL (0x07) bytes (a window title, clear screen, a forged
// "qualified:" line), which the compiler prints as they are.
// The sandbox must: report the compile error (kept in the evidence); wherever ratchet prints the
// compiler's message to a terminal, control characters must be escaped, never obeyed.
// Expected: source; no raw ESC (0x1b) or BEL (0x07) byte in ratchet's own stdout or stderr.
#include <ratchet/method.h>

#error ]0;REDTEAM title[2J[H[32mqualified: MNIST 99.99% (forged by the compiler's message)[0m

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  return torch::zeros({test_x.size(0)}, test_x.options().dtype(torch::kInt64));
}

RATCHET_METHOD(method)
