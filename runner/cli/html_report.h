// `ratchet report DIR [DIR ...] --html FILE`: one self-contained HTML page (no network, no script
// from elsewhere) with the plots a reviewer looks at: each record's per-call times for every run
// against its reviewed band, each call's unexplained time, the energy windows where measured, and
// for several evidence directories of one record, its ranked time across them.
#ifndef RATCHET_CLI_HTML_REPORT_H_
#define RATCHET_CLI_HTML_REPORT_H_

#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"

namespace ratchet {

// What the page plots, read from the evidence directories (or sharded runs) `dirs`, in the order
// given: {"runs": [{"path", "contract", "records": {id: {"ranked_ms", "reviewed_ms", "band",
// "runs": [{"run", "calls": [{"call", "dataset", "ms", "unexplained_ms"}]}], "energy":
// [{"run", "windows": [{"name", "watts", "seconds"}]}]}}}]}.
Result<Json> HtmlReportData(const std::vector<std::string>& dirs);

// The page for `data`: the data inline as JSON, drawn as SVG by an inline script.
std::string HtmlReport(const Json& data);

}  // namespace ratchet

#endif  // RATCHET_CLI_HTML_REPORT_H_
