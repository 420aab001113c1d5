"""The same traffic on a hosted API (docs/method.md §13): each compared Catalog offer priced per attempt with the
prefix hit rate, month by month on the plan's calendar with escalation and contingency, beside the plan's serving
cost; and the break-even traffic above which self-hosting the plan's serving configuration costs less, on a flat
day at launch prices (with a fleet, §11), or whether it does at any traffic (without one, §9's GPU-hours are linear
in tokens).

Nothing here sizes a replica of its own: the fleet's configuration, its roofline at the chosen batch and its queue
sizing are §11's (planner/engine/fleet.py); the months, prices and the plan's serving cost are §13's (the Cost
table).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from planner.engine.shared import HOURS_PER_DAY, SECONDS_PER_HOUR
from planner.engine.values import plain
from planner.method import Constant, Method
from planner.specs import excel_fixed


def _whole(value: float) -> str:
    """A count a break-even walk lands on x.5 within a few ulps (117,187.49999999994): TEXT in LibreOffice and
    Gnumeric rounds the double itself, not its 15 digits, so this rounds it exactly (Excel may show one more)."""
    return f"{Decimal(value).quantize(Decimal(1), rounding=ROUND_HALF_UP):,}"

PER_MILLION = 1e6
SECONDS_PER_DAY = HOURS_PER_DAY * SECONDS_PER_HOUR
START_RATE = 1e-9  # requests per second: where the walk over the fleet's cost steps starts
RELATIVE = 1e-12  # each step's end is bisected to this relative width
FLOOR_DECIMALS = 12  # "never" compares ROUND(f, 12) with ROUND(r_a·a_req, 12)
NEVER = "never"
NO_FLEET_ANY = "at any traffic"
NO_FLEET_NONE = "at no traffic"
NO_CONFIGURATION = "none meets the SLO"  # the Fleet's answer when no configuration meets it (fleet.NO_FLEET)
PATH_WORDS = {"on_demand": "renting on demand", "owned": "owning",
              "committed_1y": "renting with a 1-year commitment", "committed_3y": "renting with a 3-year commitment"}
CAVEAT = ("An API's model and quality may differ from the plan's: a provider may serve a quantized build (Together "
          "describes its Turbo endpoints as FP8; not re-checked here), another engine, sampler or context limit, and "
          "promises no TTFT or TPOT: the plan's quality rate and its latency targets are not the API's, and the "
          "comparison assumes the API's answers are retried as often as the fleet's. An API's price per output "
          "million includes its input tokens. Rate limits, data residency and price changes are outside this "
          "comparison.")


def price_per_attempt(offer, *, prompt: float, output: float, hit_rate: float, fx: float) -> float:
    """a_req = ((1 − h)·s·p_in + h·s·p_ci + o·p_out)·fx/1e6, p_ci = p_in when blank (no cache discount)."""
    cached = offer.price_input_per_million if offer.price_cached_input_per_million is None \
        else offer.price_cached_input_per_million
    return ((1 - hit_rate) * prompt * offer.price_input_per_million + hit_rate * prompt * cached
            + output * offer.price_output_per_million) * fx / PER_MILLION


def retry_factor(scenario) -> float:
    """r_a = 1/q with a fleet that retries, else 1: a response that fails on quality is asked and billed again."""
    fleet = scenario.fleet
    return 1 / fleet.quality if fleet is not None and fleet.retries else 1.0


def path_price(scalars: dict) -> float | str:
    """π, the plan's price per GPU-hour on its path: p_od on demand, MIN(p_eff, p_od) committed, c_own owned
    (× fx already, as §13 converts them); the owned cost's reason where it has none."""
    path = scalars["path"]
    if path == "owned":
        return scalars["own_cost_per_gpu_hour"]
    if path == "committed":
        effective = scalars["price_baseline_effective"]  # its reason where it has none (a mixed fleet's, §15.1)
        return effective if isinstance(effective, str) else min(effective, scalars["price_on_demand"])
    return scalars["price_on_demand"]


# The break-even traffic with a fleet -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Chosen:
    """§11's configuration chosen at launch, as the break-even sizes it again: its config, roofline at B, SLO, the
    spare share and the price per GPU-hour of each pool (prefill, decode)."""

    config: object
    roof: object
    slo: object
    prices: tuple[float, float]

    def replicas(self, rate: float) -> tuple[int, ...] | str:
        """(n,) or (x, y) at a flat served rate, as §11 sizes them; or the reason there are none."""
        from planner.engine import fleet as fleet_engine

        return fleet_engine.replicas_at(self.config, self.roof, rate, self.slo)

    def day_cost(self, replicas: tuple[int, ...]) -> float:
        """S = 24·Σ_pool CEIL9(replicas·(1 + r_f))·t·π."""
        from planner.engine import fleet as fleet_engine

        pools = zip(replicas, self.config.parallel, self.prices[-len(replicas):])
        return HOURS_PER_DAY * sum(fleet_engine.pool_cost(n, t, self.slo.spare) * price for n, t, price in pools)

    def floor(self, retry: float) -> float:
        """f = r_a·(1 + r_f)·(GPU-seconds per request at B, each pool at its price)/3600."""
        c, roof = self.config, self.roof
        if c.aggregated:
            seconds = c.parallel[0] * self.prices[1] * roof.cycle / roof.batch
        else:
            t_p, t_d = c.parallel
            seconds = t_p * self.prices[0] * c.ttft_s + t_d * self.prices[1] * roof.outputs * roof.step / roof.batch
        return retry * (1 + self.slo.spare) * seconds / SECONDS_PER_HOUR


def chosen(scenario, fleet_table, price) -> Chosen | None:
    """The fleet's cheapest configuration at its batch, or None when none meets the SLO (or, on one GPU type, the
    path has no price). Mixed pools (§15.1) are each at their GPU's on-demand price, as the Fleet prices them."""
    from planner.engine import fleet as fleet_engine

    best = fleet_table.cheapest
    if best is None:
        return None
    config = fleet_table.configurations[best["index"]]
    if config.mixed:
        prices = (config.prefill_price, config.price)
    elif isinstance(price, float):
        prices = (price, price)
    else:
        return None
    ttft = config.ttft_s if config.aggregated else float(config.decode.ttft_s())
    roof = fleet_engine.Roofline.rows(config.decode, [best["batch"]], ttft)[0]
    f, g = scenario.fleet, scenario.goodput
    slo = fleet_engine.SLO(g.slo.ttft_ms, g.slo.tpot_ms, g.attainment_target, f.quality, f.spare)
    return Chosen(config, roof, slo, prices)


def break_even(fleet: Chosen, *, per_rate: float, retry: float, peak: float) -> dict:
    """Y_λ: the largest first-attempt rate at which the fleet sized at λ·r_a costs more a day than the API,
    86,400·λ·r_a·a_req (per_rate = 86,400·r_a·a_req). The walk over S's steps from λ = 1e−9: each step's last rate
    by doubling, then bisecting to a relative 1e−12; on a step from λ_a to λ_b whose cost S_a is above the API's at
    λ_a, self-hosting is dearer up to MIN(λ_b, S_a/per_rate). It stops at the end of the first step that ends at or
    above both twice the largest such end and the peak rate."""
    def cost(rate):
        found = fleet.replicas(rate * retry)
        return None if isinstance(found, str) else round(fleet.day_cost(found), 9)

    rate, largest = START_RATE, 0.0
    while True:
        step = cost(rate)
        if step is None:  # past the queue's range: the walk ends where it could size
            return {"rate": largest, "searched_to": rate}
        low, high = rate, rate * 2
        while cost(high) == step:
            low, high = high, high * 2
        while high - low > RELATIVE * high:
            middle = (low + high) / 2
            low, high = (middle, high) if cost(middle) == step else (low, middle)
        if step > per_rate * rate:
            largest = max(largest, min(low, step / per_rate))
        if low >= 2 * largest and low >= peak:
            return {"rate": largest, "searched_to": low}
        rate = high


# The table -----------------------------------------------------------------------------------------------------------
@dataclass
class ApiTable:
    """docs/method.md §13 for one scenario: one object per compared offer (as listed), the month rows on the plan's
    calendar, and what they share."""

    scalars: dict
    offers: list[dict]
    months: list[dict]

    @property
    def cheapest(self) -> dict:
        """The offer of the least total over the plan (the first listed on a tie)."""
        return min(self.offers, key=lambda o: o["total_cost"])

    @property
    def headline(self) -> dict:
        best = self.cheapest
        return {"api_retry_factor": self.scalars["retry_factor"], "api_offers_compared": len(self.offers),
                "api_cheapest_offer": best["offer"], "api_cheapest_total_cost": best["total_cost"],
                "api_cheapest_cost_per_request": best["cost_per_request"],
                "api_cheapest_break_even_tokens_per_day": blank(best["break_even_tokens_per_day"]),
                "api_serving_total_cost": self.scalars["serving_total_cost"],
                "api_answer": " ".join(o["words"] for o in self.ranked), "api_caveat": CAVEAT}

    @property
    def ranked(self) -> list[dict]:
        """The offers by their total over the plan, the cheapest first (the earlier listed on a tie)."""
        return sorted(self.offers, key=lambda o: o["total_cost"])

    @property
    def checks(self) -> dict[str, bool]:
        return {"api_break_even_holds": all(o["break_even_holds"] for o in self.offers)}

    def to_json(self) -> dict:
        return {**self.scalars, "offers": self.offers, "months": self.months}


def blank(value):
    return "" if value is None else value


def compute(scenario, tables) -> ApiTable:
    s = scenario
    catalog, cost = s.merged_catalog, tables["cost"]
    prompt = s.serving.prompt_tokens
    output = s.serving.sequence_length - prompt
    retry, fx, kappa = retry_factor(s), s.fx_rate, s.budget.contingency
    plan_rows = [r for r in cost.rows if r["in_plan"]]
    attempts = [r["served_tokens"] / output * retry for r in plan_rows]
    price = path_price(cost.scalars)
    fleet = chosen(s, tables["fleet"], price) if s.fleet is not None else None
    serving_total = cost.unit["serving_cost"]
    path = cost.scalars["path"]
    if path == "committed":
        path = s.pricing.serving_baseline_tier
    offers = []
    for key in s.api.offers:
        offer = catalog.api_offers[key]
        a_req = price_per_attempt(offer, prompt=prompt, output=output, hit_rate=s.serving.prefix_hit_rate, fx=fx)
        monthly = [n * a_req * r["escalation"] for n, r in zip(attempts, plan_rows)]
        found = {"offer": key, "provider": offer.provider, "model": offer.model,
                 "price_input_per_million": offer.price_input_per_million,
                 "price_cached_input_per_million": offer.price_cached_input_per_million,
                 "price_output_per_million": offer.price_output_per_million, "source": offer.source or "",
                 "as_of": offer.as_of or "", "cost_per_request": a_req,
                 "cost_per_million_output": a_req * PER_MILLION / output,
                 "total_cost": sum(monthly) * (1 + kappa), "monthly": monthly,
                 "catalog_row": list(catalog.api_offers).index(key) + 1}
        found |= _break_even(s, fleet, a_req, retry=retry, price=price,
                             tokens_per_s=cost.plan.tokens_per_s_per_gpu, output=output)
        found["words_cost"], found["words_break_even"] = words(
            found, serving_total=serving_total, path=path, prompt=prompt, output=output, symbol=s.currency_symbol,
            plan_model=s.model, retry=retry)
        found["words"] = found["words_cost"] + found["words_break_even"]
        offers.append(found)
    months = [{"month": r["month"], "attempts": n, "input_tokens": n * prompt,
               "cached_input_tokens": n * s.serving.prefix_hit_rate * prompt, "output_tokens": n * output,
               **{o["offer"]: o["monthly"][i] for o in offers}} for i, (n, r) in enumerate(zip(attempts, plan_rows))]
    for o in offers:
        del o["monthly"]
    pools = fleet.prices if fleet is not None else (price, price)
    scalars = {"retry_factor": retry, "path": cost.scalars["path"], "path_price": price,
               "prefill_price": pools[0], "decode_price": pools[1],
               "serving_total_cost": serving_total, "contingency": kappa, "caveat": CAVEAT}
    return ApiTable({k: plain(v) for k, v in scalars.items()}, [{k: plain(v) for k, v in o.items()} for o in offers],
                    [{k: plain(v) for k, v in m.items()} for m in months])


def _break_even(s, fleet: Chosen | None, a_req: float, *, retry: float, price, tokens_per_s, output: float) -> dict:
    """The floor, Y_λ, the rate searched to, Y and the requests a day at Y, and the integers at Y_λ·r_a (with a
    fleet); without one, whether self-hosting costs less at any traffic."""
    found = {"floor_per_request": None, "break_even_rate": None, "break_even_searched_to": None,
             "break_even_tokens_per_day": None, "break_even_requests_per_day": None, "break_even_replicas": None,
             "break_even": None, "break_even_holds": True}
    if s.fleet is None and not isinstance(price, float):  # the price's n/a reason, as the sheet shows it
        return found | {"break_even": price, "own_cost_per_million_output": price}
    if s.fleet is None:
        if not tokens_per_s:
            return found | {"break_even": NO_FLEET_NONE}
        own = price * PER_MILLION / (SECONDS_PER_HOUR * tokens_per_s)
        api = a_req * PER_MILLION / output
        return found | {"break_even": NO_FLEET_ANY if own <= api else NO_FLEET_NONE,
                        "own_cost_per_million_output": own}
    if fleet is None:
        return found | {"break_even": price if not isinstance(price, float) else NO_CONFIGURATION}
    floor = fleet.floor(retry)
    found["floor_per_request"] = floor
    if round(floor, FLOOR_DECIMALS) >= round(retry * a_req, FLOOR_DECIMALS):
        return found | {"break_even": NEVER}
    walked = break_even(fleet, per_rate=SECONDS_PER_DAY * retry * a_req, retry=retry, peak=s.fleet.peak_rate)
    y = walked["rate"]
    replicas = fleet.replicas(y * retry)
    day_cost = fleet.day_cost(replicas) if not isinstance(replicas, str) else None
    api_day = SECONDS_PER_DAY * y * retry * a_req
    return found | {"break_even_rate": y, "break_even_searched_to": walked["searched_to"],
                    "break_even_tokens_per_day": SECONDS_PER_DAY * output * y,
                    "break_even_requests_per_day": SECONDS_PER_DAY * y,
                    "break_even_replicas": None if isinstance(replicas, str) else list(replicas),
                    "break_even": "above", "break_even_day_cost": day_cost, "break_even_api_day_cost": api_day,
                    "break_even_holds": day_cost is not None and round(day_cost, 9) <= round(api_day, 9)}


def money_words(value: float, symbol: str, decimals: int = 0) -> str:
    """An amount as the words show it, rounded as a spreadsheet's TEXT rounds (half away from zero)."""
    amount = excel_fixed(value, decimals)
    return f"{symbol}{amount}" if len(symbol) == 1 else f"{amount} {symbol}"


def words(o: dict, *, serving_total, path: str, prompt: int, output: int, symbol: str, plan_model: str,
          retry: float) -> tuple[str, str]:
    """The Cover's line for one offer (docs/method.md §13: the words): what it would cost, and when
    self-hosting costs less."""
    serving = money_words(serving_total, symbol) if isinstance(serving_total, float) else serving_total
    cost = (f"The same traffic on {o['offer']} would cost {money_words(o['total_cost'], symbol)} over the plan, "
            f"against {serving} for {PATH_WORDS[path]} (the plan's serving cost).")
    if o["model"] != plan_model:
        cost += f" ({o['offer']} serves {o['model']}, not the plan's model)"
    flat = " On a flat day at launch prices, self-hosting this configuration costs"
    shape = f"of {excel_fixed(prompt, 0)} prompt and {excel_fixed(output, 0)} output tokens"
    if o["break_even"] == "above":
        then = (f"{flat} less at any traffic above {excel_fixed(o['break_even_tokens_per_day'], 0)} output tokens a "
                f"day ({_whole(o['break_even_requests_per_day'])} requests {shape}).")
    elif o["break_even"] == NEVER:
        then = (f"{flat} more at any traffic: its cost never falls below "
                f"{money_words(o['floor_per_request'], symbol, 7)} a request, the offer's price is "
                f"{money_words(retry * o['cost_per_request'], symbol, 7)}.")
    elif o["break_even"] in (NO_FLEET_ANY, NO_FLEET_NONE):
        then = (f" At launch prices, self-hosting costs less {o['break_even']}: its GPU-hours grow with the tokens, "
                f"{money_words(o['own_cost_per_million_output'], symbol, 4)} per million output tokens against the "
                f"offer's {money_words(o['cost_per_million_output'], symbol, 4)}, input tokens included.")
    else:
        then = f" No break-even traffic: {o['break_even']}."
    return cost, then


CONSTANTS = [
    Constant("api_floor_decimals", FLOOR_DECIMALS, label="Decimals the floor and the offer's price are compared at",
             unit="decimals", source="A trillionth of a currency unit a request: \"never\" when the floor rounds "
             "to at least the offer's price"),
    Constant("api_start_rate", START_RATE, label="Where the break-even walk starts", unit="requests per second",
             source="docs/method.md §13: the walk over the fleet's cost steps starts at 1e-9 requests per second"),
]
METHOD = Method(
    title="The same traffic on a hosted API",
    formulas=[
        "a_req = ((1 − h)·s·p_in + h·s·p_ci + o·p_out)·fx/1e6; month k: T_k/o·r_a attempts × a_req × e_k; over the "
        "plan × (1 + κ), beside the plan's serving cost. With a fleet, Y: above it the fleet chosen at launch, sized "
        "at a flat rate, costs less a day than the API (never when its floor per request is at least r_a·a_req).",
    ],
    sources=["Offers: illustrative list prices (Bifrost/LiteLLM, 2026-12-07), not confirmed on the providers' pages."],
    caveats=["An API's model, quality and latency may differ from the plan's (the API sheet and the Cover say how)."],
)
