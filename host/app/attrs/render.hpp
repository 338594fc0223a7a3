// attrs/render.hpp: what `warplab attrs` prints, kept apart from option handling
// (command.cpp): pattern selection over the attribute table (select.cpp) and the text, CSV
// and diff renderings of device snapshots (render.cpp).
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "cu/device.hpp"

namespace warplab::app {

// True when `pattern` selects the attribute `name`: a glob (it contains * ? or [) is
// matched against the name and its aliases; anything else is a case-insensitive
// substring of the name, an alias, the unit or the meaning. Unknown names (from a newer
// cuda.h than ours) have only their name to match.
bool attribute_matches(const std::string& pattern, const std::string& name);

// The attribute names to show, in display order (group order, then table order; names
// the table does not know last, alphabetically). Empty `patterns` selects everything the
// table knows or the snapshots hold. Throws Error (bad_input) naming the first pattern
// that matches nothing.
std::vector<std::string> select_attributes(const std::vector<cu::DeviceSnapshot>& snaps,
                                           const std::vector<std::string>& patterns);

// "NVIDIA H200 (sm_90, 132 SMs, 139 GiB) [device 0, driver 13.0]"
std::string describe(const cu::DeviceSnapshot& s);

// Grouped table: name, value with its unit, meaning; a footer unless `quiet`.
void print_text(std::ostream& out, const cu::DeviceSnapshot& s, const std::vector<std::string>& names,
                bool color, bool quiet);
// name,value,unit,group,meaning (RFC 4180 quoting); with `device_column`, a leading
// "device" column holding the ordinal (for --device all).
void print_csv(std::ostream& out, const std::vector<cu::DeviceSnapshot>& snaps,
               const std::vector<std::string>& names, bool device_column);
// The attributes (and name / total memory) that differ, then a count of equal ones.
// True when anything differs (`attrs --diff` then exits 1, as diff does).
bool print_diff(std::ostream& out, const cu::DeviceSnapshot& a, const cu::DeviceSnapshot& b,
                const std::vector<std::string>& names, bool color);
// The same as JSON: {"a": {source, summary}, "b": ..., "same", "rows": [{name, a, b, unit}],
// "counts": {differ, equal, only_a, only_b}}; raw values, null where a side lacks one.
bool print_diff_json(std::ostream& out, const cu::DeviceSnapshot& a, const cu::DeviceSnapshot& b,
                     const std::vector<std::string>& names);

}  // namespace warplab::app
