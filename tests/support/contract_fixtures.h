// Fixed contract inputs for tests: a locked part and two machines (a CPU lane and an H200 lane),
// every hash a repeated hex digit, so that contracts built from them are pinned byte for byte.
#ifndef RATCHET_TESTS_SUPPORT_CONTRACT_FIXTURES_H_
#define RATCHET_TESTS_SUPPORT_CONTRACT_FIXTURES_H_

#include <string>

#include "contract/contract.h"
#include "contract/facts.h"

namespace ratchet {

inline LockedInputs TestLocked() {
  LockedInputs locked;
  locked.scorer_version = "0.1.0";
  locked.scorer_source_sha256 = std::string(64, 'a');
  locked.rules_id = "mnist-a100/1.2.0";
  locked.rules_sha256 = std::string(64, 'b');
  locked.datasets = {{"mnist", true, std::string(64, '1'), std::string(64, '2')},
                     {"fashion", true, std::string(64, '3'), std::string(64, '4')},
                     {"kmnist", false, "", ""}};
  locked.workers = {{"worker.py", std::string(64, '5')}, {"check_source.py", std::string(64, '6')}};
  locked.sandbox_policy_sha256 = std::string(64, '7');
  locked.sandbox_uid = 65534;
  return locked;
}

inline MachineFacts CpuMachine() {
  MachineFacts machine;
  machine.binary_sha256 = std::string(64, 'c');
  machine.worker_binary_sha256 = std::string(64, '8');
  machine.cxx = "g++ 12.2.0";
  machine.libtorch = "1.13.1";
  machine.python = PythonFacts{"/usr/bin/python3", "3.11.2", "1.13.1", ""};
  machine.glibc = "2.36";
  machine.libraries = {{"libc.so.6", std::string(64, 'd')},
                       {"libcrypto.so.3", std::string(64, 'e')}};
  machine.device.note = "no NVIDIA driver: libnvidia-ml.so.1: cannot open shared object file";
  machine.processor = "AMD EPYC 9654 96-Core Processor";
  machine.sandbox_full = true;
  return machine;
}

inline MachineFacts CudaMachine() {
  MachineFacts machine = CpuMachine();
  machine.libtorch = "2.5.1";
  machine.python = PythonFacts{"/usr/bin/python3", "3.11.2", "2.5.1+cu124", "12.4"};
  machine.device.kind = "cuda";
  machine.device.name = "NVIDIA H200";
  machine.device.driver = "550.90.07";
  machine.device.cuda_driver = "12.4";
  machine.device.vbios = "96.00.99.00.01";
  machine.device.power_limit_mw = 700000;
  machine.device.l2_bytes = 62914560;
  machine.device.sm_count = 132;
  machine.device.uuid = "GPU-00000000-1111-2222-3333-444444444444";
  machine.device.note.clear();
  return machine;
}

}  // namespace ratchet

#endif  // RATCHET_TESTS_SUPPORT_CONTRACT_FIXTURES_H_
