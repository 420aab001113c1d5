"""The Cluster table's inputs (docs/method.md §4): the cluster, the inference peak, the spare share, the demand
profile and the restart cost."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from planner.scenario.catalog_entries import Profile
from planner.scenario.declare import Count, ProfileId, Section, choice, declared, whole
from planner.scenario.errors import unknown

CUSTOM_PROFILE = "custom"  # the Catalog id of a profile given inline as 24 fractions


class Cluster(Section):
    model_config = ConfigDict(title="Cluster over 24 hours")

    gpus: Count = declared(1024, "Cluster GPUs", "GPUs", "The whole cluster, for inference and training.",
                           kind="count", symbol="N")
    inference_peak_gpus: whole(0) = declared(600, "Inference peak", "GPUs", "GPUs inference needs at its busiest "
                                             "hour.", kind="count", symbol="P")
    spare: Annotated[float, Field(ge=0, le=10)] = declared(0.10, "Spare share r", "of demand", "Held ready for "
                                                            "failures and spikes: separate pools add it to the "
                                                            "peak, a shared cluster to each hour's demand.",
                                                            kind="percent")
    profile: choice(ProfileId, Profile) = declared("office-assistant", "Demand profile", "", "24 hourly fractions of "
                                                   "the peak, one profile per column on Catalog; add your own there.",
                                                   kind="text", choices="catalog_profile_ids")
    restart_cost_gpu_hours: Annotated[float, Field(ge=0, le=1000)] = declared(
        0.25, "Restart cost c", "GPU-hours", "Per preempted GPU: work since the last checkpoint plus restart.",
        kind="decimal")


SECTIONS = {"cluster": Cluster}


def canonical(scenario) -> list:
    """A profile given inline as 24 fractions joins the Catalog as "custom"."""
    c, own = scenario.cluster, scenario.catalog
    if isinstance(c.profile, str):
        return []
    if CUSTOM_PROFILE in own.profiles and list(own.profiles[CUSTOM_PROFILE]) != list(c.profile):
        return [(("cluster", "profile"), None, f"the inline profile is named '{CUSTOM_PROFILE}' on Catalog, and "
                 f"catalog.profiles.{CUSTOM_PROFILE} gives other fractions: give one of them",
                 ("catalog", "profiles", CUSTOM_PROFILE))]
    own.profiles[CUSTOM_PROFILE] = c.profile
    c.profile = CUSTOM_PROFILE
    scenario.alias(("catalog", "profiles", CUSTOM_PROFILE), ("cluster", "profile"))
    return []


def cross_checks(scenario, catalog) -> list:
    """The profile is in the merged Catalog, and the separate serving pool fits in the cluster."""
    c = scenario.cluster
    if c.profile not in catalog.profiles:
        return [(("cluster", "profile"), c.profile, unknown("demand profile", c.profile, catalog.profiles)
                 + ", or a list of 24 fractions of peak")]
    from planner.engine.cluster import serving_pool  # numpy: imported when a scenario is checked, not for its schema

    busiest = max(catalog.profiles[c.profile])
    pool = serving_pool(c.inference_peak_gpus, catalog.profiles[c.profile], c.spare)
    if pool > c.gpus:
        return [(("cluster", "inference_peak_gpus"), c.inference_peak_gpus,
                 f"the serving pool, peak demand {c.inference_peak_gpus * busiest:,.6g} GPUs ({c.profile}'s busiest "
                 f"hour, {busiest * 100:.4g} % of the peak) plus {c.spare * 100:.4g} % spare rounded up, is "
                 f"{pool:,.0f} GPUs: more than the cluster's {c.gpus:,} (cluster.gpus)")]
    return []
