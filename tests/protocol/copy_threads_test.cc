#include "protocol/copy_threads.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "protocol/input_buffer.h"

namespace ratchet {
namespace {

TEST(CopyThreadsTest, HelpersOnlyWhereTheMethodLeavesCoresIdle) {
  EXPECT_EQ(CopyThreads::HelpersFor(1), 0);
  EXPECT_EQ(CopyThreads::HelpersFor(2), 0);  // the development machine: the cores are the method's
  EXPECT_EQ(CopyThreads::HelpersFor(7), 0);
  EXPECT_EQ(CopyThreads::HelpersFor(8), 1);
  EXPECT_EQ(CopyThreads::HelpersFor(12), 2);
  EXPECT_EQ(CopyThreads::HelpersFor(16), 3);  // the H200 host: four threads write
  EXPECT_EQ(CopyThreads::HelpersFor(128), 3);
  EXPECT_GE(CopyThreads::UsableCores(), 1u);
}

TEST(CopyThreadsTest, EveryThreadGetsItsOwnAlignedShareAndTogetherEveryByte) {
  for (int threads : {1, 2, 3, 4}) {
    for (size_t total : {size_t{0}, size_t{10}, size_t{64}, size_t{4880000}, size_t{4880001}}) {
      size_t next = 0;
      for (int index = 0; index < threads; ++index) {
        CopyThreads::Share share = CopyThreads::ShareOf(index, threads, total);
        EXPECT_EQ(share.begin, next)
            << threads << " threads, " << total << " bytes, thread " << index;
        EXPECT_LE(share.begin, share.end);
        if (share.begin < total) {
          EXPECT_EQ(share.begin % 64, 0u);
        }
        next = share.end;
      }
      EXPECT_EQ(next, total) << threads << " threads, " << total << " bytes";
    }
  }
  // The standard draw's 4,880,000 bytes: the helpers get work, not thread 0 all of it.
  CopyThreads::Share first = CopyThreads::ShareOf(0, 4, 4880000);
  CopyThreads::Share last = CopyThreads::ShareOf(3, 4, 4880000);
  EXPECT_EQ(first.end - first.begin, 1220032u);
  EXPECT_EQ(last.end - last.begin, 4880000u - 3 * 1220032u);
}

// Three pieces of sizes that are not multiples of a share or of a cache line, so that shares
// begin and end inside pieces and some thread's share spans two of them.
struct Pieces {
  explicit Pieces(const std::vector<size_t>& sizes) {
    for (size_t size : sizes) {
      from.emplace_back(size);
      to.emplace_back(size, 0xEE);
    }
  }
  void Fill(unsigned seed) {
    for (size_t p = 0; p < from.size(); ++p) {
      for (size_t i = 0; i < from[p].size(); ++i) {
        from[p][i] = static_cast<unsigned char>((i * 131 + p * 17 + seed * 7) & 0xFF);
      }
    }
  }
  std::vector<CopyPiece> Plan() {
    std::vector<CopyPiece> pieces;
    for (size_t p = 0; p < from.size(); ++p)
      pieces.push_back({to[p].data(), from[p].data(), from[p].size()});
    return pieces;
  }
  std::vector<std::vector<unsigned char>> from, to;
};

// Parameters: the helpers, and the stores.
class CopyThreadsCopies : public ::testing::TestWithParam<std::tuple<int, Stores>> {
 protected:
  int helpers() const { return std::get<0>(GetParam()); }
  Stores stores() const { return std::get<1>(GetParam()); }
};

TEST_P(CopyThreadsCopies, EveryByteOfEveryPieceOnEveryCopy) {
  CopyThreads copy_threads(helpers(), stores());
  EXPECT_EQ(copy_threads.helpers(), helpers());
  EXPECT_EQ(copy_threads.threads(), helpers() + 1);
  EXPECT_EQ(copy_threads.stores(), EffectiveStores(stores()));
  Pieces pieces({2400001, 80003, 127});
  std::vector<CopyPiece> plan = pieces.Plan();
  for (unsigned round = 0; round < 20; ++round) {
    copy_threads.Settle();  // the sources change only once the last copy is settled
    pieces.Fill(round);
    if (round % 2 == 0) copy_threads.Arm();  // as before a window; Copy arms by itself otherwise
    copy_threads.Copy(plan.data(), plan.size());
    for (size_t p = 0; p < plan.size(); ++p) {
      ASSERT_EQ(pieces.to[p], pieces.from[p]) << "piece " << p << ", round " << round;
    }
    // Every thread wrote its share the copy threads' way: with streaming stores all but the few
    // bytes at the ends of each thread's part of each piece. A helper's share counts twice when the
    // caller overtook a helper the system held back (on a busy machine), so at most every
    // helper's share twice and the caller's once.
    copy_threads.Settle();
    const size_t total = 2400001 + 80003 + 127;
    if (copy_threads.stores() == Stores::kStreaming) {
      EXPECT_GT(copy_threads.StreamedBytesForTesting(), total - 2 * 64 * 3 * copy_threads.threads())
          << "round " << round;
      const CopyThreads::Share own = CopyThreads::ShareOf(0, copy_threads.threads(), total);
      EXPECT_LE(copy_threads.StreamedBytesForTesting(), 2 * total - (own.end - own.begin))
          << "round " << round;
    } else {
      EXPECT_EQ(copy_threads.StreamedBytesForTesting(), 0u) << "round " << round;
    }
  }
}

TEST_P(CopyThreadsCopies, ACopySmallerThanOneShareEach) {
  CopyThreads copy_threads(helpers(), stores());
  Pieces pieces({3, 0, 5});
  pieces.Fill(1);
  std::vector<CopyPiece> plan = pieces.Plan();
  copy_threads.Copy(plan.data(), plan.size());
  EXPECT_EQ(pieces.to[0], pieces.from[0]);
  EXPECT_EQ(pieces.to[2], pieces.from[2]);
}

TEST_P(CopyThreadsCopies, NothingOutsideThePiecesIsWritten) {
  CopyThreads copy_threads(helpers(), stores());
  // One buffer with a guard band before and after each piece's destination.
  std::vector<unsigned char> from(1000), to(1000 + 3 * 64 + 64, 0xEE);
  std::iota(from.begin(), from.end(), 0);
  std::vector<CopyPiece> plan = {{to.data() + 64, from.data(), 500},
                                 {to.data() + 64 + 500 + 64, from.data() + 500, 300},
                                 {to.data() + 64 + 800 + 128, from.data() + 800, 200}};
  copy_threads.Copy(plan.data(), plan.size());
  for (size_t i = 0; i < to.size(); ++i) {
    const bool inside = (i >= 64 && i < 564) || (i >= 628 && i < 928) || (i >= 992 && i < 1192);
    if (!inside) {
      ASSERT_EQ(to[i], 0xEE) << "byte " << i << " outside every piece was written";
    }
  }
  EXPECT_EQ(0, std::memcmp(to.data() + 64, from.data(), 500));
  EXPECT_EQ(0, std::memcmp(to.data() + 628, from.data() + 500, 300));
  EXPECT_EQ(0, std::memcmp(to.data() + 992, from.data() + 800, 200));
}

TEST_P(CopyThreadsCopies, ArmedAndNeverUsedItStillEnds) {
  // Copy threads armed before a window that never opened (the call failed in between): its helpers
  // spin for a copy that does not come, and the destructor must end them.
  auto copy_threads = std::make_unique<CopyThreads>(helpers(), stores());
  copy_threads->Arm();
  copy_threads.reset();
  SUCCEED();
}

INSTANTIATE_TEST_SUITE_P(HelpersAndStores, CopyThreadsCopies,
                         ::testing::Combine(::testing::Values(0, 1, 3),
                                            ::testing::Values(Stores::kCached, Stores::kStreaming)),
                         [](const ::testing::TestParamInfo<std::tuple<int, Stores>>& info) {
                           return std::to_string(std::get<0>(info.param)) + "_helpers_" +
                                  StoresName(std::get<1>(info.param));
                         });

// Alignments of source and destination and lengths around the 16-byte stores and the 64-byte
// lines of a streaming copy; nothing before or after the destination is written, and the bytes
// streamed are the destination's whole lines.
TEST(CopyBytesTest, StreamingWhereTheBuildMakesItAndTheEvidenceSaysWhatWasDone) {
#if defined(__x86_64__)
  EXPECT_EQ(EffectiveStores(Stores::kStreaming), Stores::kStreaming);
#else
  EXPECT_EQ(EffectiveStores(Stores::kStreaming), Stores::kCached);
#endif
  EXPECT_EQ(EffectiveStores(Stores::kCached), Stores::kCached);
  EXPECT_STREQ(StoresName(Stores::kStreaming), "streaming");
  EXPECT_STREQ(StoresName(Stores::kCached), "cached");
}

TEST(CopyBytesTest, EveryAlignmentAndLengthCopiesExactlyTheBytes) {
  std::vector<unsigned char> from(512);
  for (size_t i = 0; i < from.size(); ++i) from[i] = static_cast<unsigned char>(i * 37 + 11);
  for (Stores stores : {Stores::kCached, Stores::kStreaming}) {
    for (size_t to_offset = 0; to_offset < 64; to_offset += (to_offset < 16 ? 1 : 7)) {
      for (size_t from_offset = 0; from_offset < 16; from_offset += 5) {
        for (size_t bytes : {0, 1, 15, 16, 63, 64, 65, 79, 128, 191, 200, 300, 450}) {
          alignas(64) unsigned char to[512 + 64];
          std::memset(to, 0xEE, sizeof to);
          const size_t streamed =
              CopyBytes(to + to_offset, from.data() + from_offset, bytes, stores);
          // Streamed: the destination's whole 64-byte lines (`to` is line-aligned), on x86-64.
          const size_t head = (64 - to_offset) % 64;
          const size_t lines = bytes >= head + 64 ? (bytes - head) / 64 * 64 : 0;
          EXPECT_EQ(streamed, EffectiveStores(stores) == Stores::kStreaming ? lines : 0u)
              << "to_offset " << to_offset << ", bytes " << bytes << ", " << StoresName(stores);
          for (size_t i = 0; i < sizeof to; ++i) {
            const bool inside = i >= to_offset && i < to_offset + bytes;
            const unsigned char want = inside ? from[from_offset + i - to_offset] : 0xEE;
            ASSERT_EQ(to[i], want)
                << "byte " << i << ", to_offset " << to_offset << ", from_offset " << from_offset
                << ", bytes " << bytes << ", " << StoresName(stores);
          }
        }
      }
    }
  }
}

// A helper the system stops (here: one that sleeps) costs the copy about one share, not as long
// as it is stopped, whether it stalls before taking its share or while it holds it; Settle waits
// for it, and the next copy is whole.
TEST(CopyThreadsStallTest, AStalledHelperDoesNotHoldTheCopy) {
  for (bool before_taking : {true, false}) {
    CopyThreads copy_threads(2, Stores::kStreaming);
    Pieces pieces({2400001, 80003, 2400000});
    std::vector<CopyPiece> plan = pieces.Plan();
    copy_threads.StallForTesting(2, before_taking, 2000000);  // 2 s
    // After its own share the caller waits (at most 0.3 s) until the helpers have taken their
    // shares: the one not stalled before taking it then holds it.
    copy_threads.StallForTesting(0, false, 300000);
    pieces.Fill(1);
    copy_threads.Arm();
    const auto started = std::chrono::steady_clock::now();
    copy_threads.Copy(plan.data(), plan.size());
    const auto copied = std::chrono::steady_clock::now();
    for (size_t p = 0; p < plan.size(); ++p) ASSERT_EQ(pieces.to[p], pieces.from[p]) << p;
    EXPECT_LT(copied - started, std::chrono::milliseconds(1000))
        << (before_taking ? "stalled before taking its share" : "stalled holding its share");
    copy_threads.Settle();
    EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(1800))
        << "Settle returned before the stalled helper was done";
    // The share the caller overtook was streamed by both, and counts twice.
    if (!before_taking && copy_threads.stores() == Stores::kStreaming) {
      EXPECT_GT(copy_threads.StreamedBytesForTesting(), size_t{2400001 + 80003 + 2400000});
    }
    copy_threads.StallForTesting(2, before_taking, 0);
    copy_threads.StallForTesting(0, false, 0);
    pieces.Fill(2);
    copy_threads.Copy(plan.data(), plan.size());
    for (size_t p = 0; p < plan.size(); ++p) ASSERT_EQ(pieces.to[p], pieces.from[p]) << p;
  }
}

TEST(InputBufferPiecesTest, ThePiecesAreTheLayoutsAndCountsAreChecked) {
  Result<InputLayout> layout = InputLayout::Make(3, 2, 4);
  ASSERT_TRUE(layout.ok());
  Result<InputBuffer> buffer = InputBuffer::Create(*layout);
  ASSERT_TRUE(buffer.ok()) << buffer.status().message();
  std::vector<float> train_x(12, 1.5f), test_x(8, -2.0f);
  std::vector<int64_t> train_y = {1, 2, 3};
  Result<std::vector<CopyPiece>> pieces = buffer->Pieces(
      train_x.data(), train_x.size(), train_y.data(), train_y.size(), test_x.data(), test_x.size());
  ASSERT_TRUE(pieces.ok()) << pieces.status().message();
  ASSERT_EQ(pieces->size(), 3u);
  EXPECT_EQ((*pieces)[1].to - (*pieces)[0].to, 48);  // train_y after train_x's 12 floats
  EXPECT_EQ((*pieces)[2].to - (*pieces)[0].to, 72);  // test_x after train_y's 3 int64
  EXPECT_EQ((*pieces)[0].bytes + (*pieces)[1].bytes + (*pieces)[2].bytes, layout->bytes());
  Result<std::vector<CopyPiece>> short_y = buffer->Pieces(
      train_x.data(), train_x.size(), train_y.data(), 2, test_x.data(), test_x.size());
  ASSERT_FALSE(short_y.ok());
  EXPECT_EQ(short_y.status().message(), "input buffer: train_y has 2 values, the layout 3");
}

}  // namespace
}  // namespace ratchet
