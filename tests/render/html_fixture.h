// Test helper of the writer tests: the hand-built results of
// tests/report/result_fixture.h.
#pragma once

#include "report/result_fixture.h"

namespace ksnap::render::testing {
using ksnap::testing::changed_stage;
using ksnap::testing::finish;
using ksnap::testing::line;
using ksnap::testing::unchanged_stage;
using ksnap::testing::variant;
}  // namespace ksnap::render::testing
