"""The GPUs added beyond the first five (issue 44 item 3; docs/method.md, Catalog, "Added GPUs"): each figure as its
cited source gives it, and the illustrative prices by the rule docs/method.md states."""

import pytest

from planner.engine.plan.inputs import Owning
from planner.inputs.cost import Ownership
from planner.engine.plan.prices import owned_rates
from planner.shipped import GPUS

# Typed from the sources, not from planner/shipped.py:
# [ML Engineering] stas00/ml-engineering compute/accelerator/README.md @ 744d01e1 (2026-08-22): dense TFLOPS table
#   (bf16, fp8, fp4) and the memory table (GB, TB/s); network/README.md: AMD XGMI all-to-all per direction.
# [AIConfigurator] ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/systems/{gb200,b300_sxm}.yaml
#   @ 095f58a5 (2026-08-21): intra_node_bw 900 GB/s and inter-node 100 GB/s per GPU, single direction.
CITED = {
    "gb200": dict(memory_gb=186, peak_tflops=2500, fp8_tflops=5000, hbm_tbps=8.0, nvlink_gbps=900,
                  network_gbps=100, gpus_per_node=72),
    "b300": dict(memory_gb=288, peak_tflops=2250, fp8_tflops=4500, hbm_tbps=8.0, nvlink_gbps=900,
                 network_gbps=100, gpus_per_node=8),
    "mi325x": dict(memory_gb=256, peak_tflops=1307.4, fp8_tflops=2614.9, hbm_tbps=6.0, nvlink_gbps=448,
                   network_gbps=None, gpus_per_node=8),
    "mi355x": dict(memory_gb=288, peak_tflops=2500, fp8_tflops=5000, hbm_tbps=8.0, nvlink_gbps=535.5,
                   network_gbps=None, gpus_per_node=8),
}
# Board power in W (AIConfigurator's `power` for gb200 and b300; AMD's board power for MI325X and MI355X), and
# SemiAnalysis InferenceX GPU_SPECS (SemiAnalysisAI/InferenceX-app packages/app/src/lib/constants.ts @ 8647066e):
# neocloud-owned cost and 3-year rental cost per GPU-hour.
BOARD_W = {"gb200": 1200, "b300": 1100, "mi325x": 1000, "mi355x": 1400}
INFERENCEX = {"gb200": (2.75, 3.30), "b300": (2.808, 3.48), "mi325x": (1.59, 1.80), "mi355x": (1.90, 2.10),
              "b200": (2.34, 2.90), "mi300x": (1.40, 1.55)}
# Measured BF16 matmul TFLOPS (ML Engineering's MAMF table): H100 794.5, GB200 1822, B300 1769, MI325X 784.9,
# MI355X 1565.
MAMF = {"gb200": 1822, "b300": 1769, "mi325x": 784.9, "mi355x": 1565}


@pytest.mark.parametrize("gpu", sorted(CITED))
def test_added_gpu_figures_are_the_cited_ones(gpu):
    row = GPUS[gpu]
    for key, value in CITED[gpu].items():
        assert getattr(row, key) == value, key


@pytest.mark.parametrize("gpu", sorted(CITED))
def test_added_gpu_rent_is_the_reference_price_times_the_inferencex_rental_ratio(gpu):
    reference, price = ("b200", 4.50) if gpu in ("gb200", "b300") else ("mi300x", 2.00)
    assert GPUS[gpu].price_per_hour == round(price * INFERENCEX[gpu][1] / INFERENCEX[reference][1], 2)
    assert GPUS[gpu].price_source.startswith("Illustrative")


@pytest.mark.parametrize("gpu", sorted(CITED))
def test_added_gpu_owned_cost_lands_on_inferencex_neocloud_cost(gpu):
    """Server kW = H100's DGX 10.2 kW ÷ 8 scaled by board power (as MI300X's); the server price to the thousand puts
    §13's owned cost per GPU-hour at the defaults within 1 % of InferenceX's neocloud-owned cost."""
    row = GPUS[gpu]
    assert row.server_kw == pytest.approx(1.275 * BOARD_W[gpu] / 700, abs=5e-4)
    # by hand at the defaults: 0.9·P/(4·8,766) + kW·(184.06·12/8,766 + 1.3·0.08) + 2·250 / 8,766
    by_hand = 0.9 * row.server_price / 35_064 + row.server_kw * (184.06 * 12 / 8766 + 0.104) + 500 / 8766
    assert owned_rates(Owning(server_price=None, server_kw=None, **Ownership().model_dump()), 1.0,
                       row.server_price, row.server_kw).cost_per_gpu_hour == pytest.approx(by_hand)
    assert by_hand == pytest.approx(INFERENCEX[gpu][0], rel=0.01)


@pytest.mark.parametrize("gpu", sorted(CITED))
def test_added_gpu_gemm_efficiency_scales_h100s_by_measured_matmul_share(gpu):
    row = GPUS[gpu]
    assert row.gemm_efficiency == round(0.47 * (MAMF[gpu] / row.peak_tflops) / (794.5 / 989), 2)
