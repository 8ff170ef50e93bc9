// A GPU test fixture for load-time refusals: loads a graph built in the test
// and returns the wgrt::Error message ("" when the graph loaded).
#pragma once

#include <string>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "wgrt/error.h"

namespace wgrt::test {

class LoadErrorTest : public GpuTest {
 protected:
  std::string load_error(GraphBuilder&& b) {
    try {
      ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
};

}  // namespace wgrt::test
