// One descriptor passed over a Unix socket (SCM_RIGHTS) with a byte of payload: how a sandboxed
// child hands its seccomp filter's listener to the parent (contain.cc sends, spawn.cc receives).
// One message layout for both ends. Async-signal-safe: the child sends between fork and execve,
// so nothing here allocates.
#ifndef RATCHET_SANDBOX_DESCRIPTOR_MESSAGE_H_
#define RATCHET_SANDBOX_DESCRIPTOR_MESSAGE_H_

#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstring>

namespace ratchet {

class DescriptorMessage {
 public:
  DescriptorMessage() {
    payload_ = {&byte_, 1};
    message_.msg_iov = &payload_;
    message_.msg_iovlen = 1;
    message_.msg_control = control_;
    message_.msg_controllen = sizeof control_;
  }
  DescriptorMessage(const DescriptorMessage&) = delete;
  DescriptorMessage& operator=(const DescriptorMessage&) = delete;

  // Sends `fd` on `socket`; false (errno set) when the message did not go.
  bool Send(int socket, int fd) {
    cmsghdr* rights = CMSG_FIRSTHDR(&message_);
    rights->cmsg_level = SOL_SOCKET;
    rights->cmsg_type = SCM_RIGHTS;
    rights->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(rights), &fd, sizeof fd);
    ssize_t sent;
    while ((sent = sendmsg(socket, &message_, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    return sent == 1;
  }

  // The descriptor waiting on `socket` (close-on-exec), or -1 when none is there or the message
  // is not one descriptor.
  int Receive(int socket) {
    ssize_t got;
    while ((got = recvmsg(socket, &message_, MSG_DONTWAIT | MSG_CMSG_CLOEXEC)) < 0 &&
           errno == EINTR) {
    }
    cmsghdr* rights = got == 1 ? CMSG_FIRSTHDR(&message_) : nullptr;
    if (rights == nullptr || rights->cmsg_level != SOL_SOCKET || rights->cmsg_type != SCM_RIGHTS ||
        rights->cmsg_len != CMSG_LEN(sizeof(int))) {
      return -1;
    }
    int fd = -1;
    std::memcpy(&fd, CMSG_DATA(rights), sizeof fd);
    return fd;
  }

 private:
  alignas(cmsghdr) char control_[CMSG_SPACE(sizeof(int))] = {};
  char byte_ = 'L';
  iovec payload_ = {};
  msghdr message_ = {};
};

}  // namespace ratchet

#endif  // RATCHET_SANDBOX_DESCRIPTOR_MESSAGE_H_
