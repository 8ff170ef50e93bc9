"""A partitioner for the registry operators VulkanPartitioner can never emit.

VulkanPartitioner (executorch 1.5.1) checks every tensor input and output of
an op against its OpFeatures dtypes (backends/vulkan/utils.py
check_node_dtypes). et_vk.linear_q4gsw_backward and et_vk.linear_q4gsw are
registered with inputs_dtypes=FP_T for all inputs, but their packed weights
are uint8 by their own definition (custom_ops_lib.py unpacks them with bit
shifts); et_vk.q4gsw_requant's output is uint8 codes, while its
outputs_dtypes default to FP_T. So no export flow delegates them (tried:
one-op modules; the partitioner logs "input[1] dtype torch.uint8 not in
{float16, float32}" and "output dtype torch.uint8 not in ...", and the
program then fails to_executorch for want of a CPU out variant). Only the
partitioning step is replaced here: the program is still lowered and
serialized by ExecuTorch's own VulkanBackend preprocess, so the serialized
arguments are the real ones."""

from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
from executorch.exir.backend.partitioner import PartitionResult
from executorch.exir.backend.utils import tag_constant_data, tag_mutated_buffer


class HandVulkanPartitioner(VulkanPartitioner):
    """VulkanPartitioner's options, decomposition list and delegation spec,
    with every operator node put in one VulkanBackend partition."""

    def partition(self, exported_program):
        for node in exported_program.graph_module.graph.nodes:
            if node.op == "call_function":
                node.meta["delegation_tag"] = "tag0"
        tag_constant_data(exported_program)
        tag_mutated_buffer(exported_program)
        return PartitionResult(tagged_exported_program=exported_program,
                               partition_tags={"tag0": self.delegation_spec})
