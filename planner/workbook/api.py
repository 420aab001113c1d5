"""The API sheet (docs/method.md §13): the plan's traffic priced on each compared Catalog API offer, per attempt,
month by month on the Budget's calendar and over the plan, beside the plan's serving cost; and the break-even
traffic. One row per offer slot (at most 8), one formula per column; the month rows carry one cost column per
slot. The engine writes what a search finds (the break-even rate, the rate searched to, the fleet's integers there)
and the words as locked values; everything else is live."""

from __future__ import annotations

from dataclasses import replace

from planner.engine import api as engine
from planner.inputs.api import MAX_OFFERS
from planner.workbook import kit
from planner.workbook.kit import Check, Column, KeyResult, Row

SHEET = "API"
O = "(serving_sequence_length-serving_prompt_tokens)"  # o, output tokens a request
NOT_ON_CATALOG = "n/a: not an offer on Catalog"
BAD_PRICE = "n/a: a price on Catalog is not a number ≥ 0"
AT = "MATCH({offer},catalog_api_offer_ids,0)"


def catalog(key: str) -> str:
    return f"INDEX(catalog_api_offer_{key},{{at}})"


def listed(formula: str) -> str:
    """Blank on an empty slot; the slot's reason where its offer is not on Catalog."""
    return f'=IF({{offer}}="","",IF(ISNUMBER({{at}}),{formula},{{at}}))'


def priced(formula: str) -> str:
    """Blank on an empty slot; the reason where the offer or its prices are not what the method needs."""
    return f'=IF({{offer}}="","",IF(ISNUMBER({{cost_per_request}}),{formula},{{cost_per_request}}))'


def slot(i: int) -> str:
    """Slot i's offer: the i-th `api.offers` cell on Inputs (blank when it is emptied)."""
    return f'=IF(ISBLANK(api_offers_{i + 1}),"",api_offers_{i + 1})'


CACHED = (f'IF({catalog("price_cached_input_per_million")}="",{catalog("price_input_per_million")},'
          f'{catalog("price_cached_input_per_million")})')  # blank tested on the Catalog cell itself
PRICES_OK = (f'AND(ISNUMBER({catalog("price_input_per_million")}),{catalog("price_input_per_million")}>=0,'
             f'ISNUMBER({{cached_price}}),{{cached_price}}>=0,ISNUMBER({catalog("price_output_per_million")}),'
             f'{catalog("price_output_per_million")}>=0)')
A_REQ = ("((1-serving_prefix_hit_rate)*serving_prompt_tokens*{price_input}+serving_prefix_hit_rate*"
         f"serving_prompt_tokens*{{cached_price}}+{O}*{{price_output}})/per_million*fx_rate")
AGGREGATED = 'fleet_chosen_mode="aggregated"'


def pools(first: str, second: str) -> str:
    """S: 24·Σ_pool CEIL9(replicas·(1 + r_f))·t·π at the break-even's integers."""
    def pool(n, t, price):
        return f"CEILING(ROUND({n}*(1+fleet_spare),gpu_rounding_decimals),1)*{t}*{price}"
    return (f"hours_per_day*IF({AGGREGATED},{pool(first, 'fleet_chosen_tensor_parallel', 'api_decode_price')},"
            f"{pool(first, 'fleet_chosen_prefill_tensor_parallel', 'api_prefill_price')}+"
            f"{pool(second, 'fleet_chosen_tensor_parallel', 'api_decode_price')})")


FLOOR = ("api_retry_factor*(1+fleet_spare)*IF(" + AGGREGATED + ",fleet_chosen_tensor_parallel*api_decode_price*"
         "fleet_chosen_cycle_s/fleet_chosen_batch,fleet_chosen_prefill_tensor_parallel*api_prefill_price*"
         f"fleet_chosen_ttft_ms/1000+fleet_chosen_tensor_parallel*api_decode_price*{O}*fleet_chosen_tpot_ms/1000/"
         "fleet_chosen_batch)/seconds_per_hour")
MIXED = "fleet_chosen_prefill_gpu<>fleet_chosen_decode_gpu"  # two GPU types (§15.1): each pool at its on-demand price
POOL_PRICES = [
    Row("prefill_price", "The prefill pool's price per GPU-hour π_p", kind="money", unit="", name="api_prefill_price",
        formula=f"=IF({MIXED},fleet_chosen_prefill_price_per_gpu_hour,api_path_price)"),
    Row("decode_price", "The decode (or only) pool's price per GPU-hour π_d", kind="money", unit="",
        name="api_decode_price", formula=f"=IF({MIXED},fleet_chosen_price_per_gpu_hour,api_path_price)"),
]
ABOVE = '{break_even}="above"'

OFFER = [
    Column("offer", "Offer", kind="text", template=slot),  # a slot per api.offers cell on Inputs
    Column("at", "Catalog row", kind="count", template=f'=IF({{offer}}="","",IFERROR({AT},"{NOT_ON_CATALOG}"))'),
    Column("provider", "Provider", kind="text", template=listed(catalog("provider"))),
    Column("model", "Model", kind="text", template=listed(catalog("model"))),
    Column("price_input", "Input p_in (USD per M)", kind="usd", template=listed(catalog("price_input_per_million"))),
    Column("cached_price", "Cached input p_ci (USD per M)", kind="usd", template=listed(CACHED)),
    Column("price_output", "Output p_out (USD per M)", kind="usd",
           template=listed(catalog("price_output_per_million"))),
    Column("cost_per_request", "Price per attempt a_req", kind="money5",
           template=listed(f'IF({PRICES_OK},{A_REQ},"{BAD_PRICE}")')),
    Column("cost_per_million_output", "Cost per output million, input tokens included", kind="money",
           template=priced("{cost_per_request}*per_million/" + O)),
    Column("total_cost", "Cost over the plan, with contingency", kind="money0",
           template=priced(f"SUMPRODUCT(calendar_served_tokens,calendar_escalation)/{O}*api_retry_factor*"
                           "{cost_per_request}*(1+budget_contingency)")),  # Σ_k R_k'·a_req·e_k·(1 + κ)
    Column("source", "Source", kind="text", template=listed(f'IF({catalog("source")}="","",{catalog("source")})')),
    Column("as_of", "As of", kind="text", template=listed(f'IF({catalog("as_of")}="","",{catalog("as_of")})')),
]
WITH_FLEET = [
    Column("floor_per_request", "Self-hosting's floor per request f", kind="money5",  # no fleet: the Fleet's words
           template=priced(f'IF(fleet_answer="{engine.NO_CONFIGURATION}",fleet_answer,{FLOOR})')),
    Column("break_even", "Self-hosting cheaper: above Y, or never", kind="text",
           template=priced('IF(ISNUMBER({floor_per_request}),IF(ROUND({floor_per_request},api_floor_decimals)>='
                           'ROUND(api_retry_factor*{cost_per_request},api_floor_decimals),'
                           f'"{engine.NEVER}","above"),{{floor_per_request}})')),
    Column("break_even_rate", "Break-even rate Y_λ (req/s)", kind="decimal", snapshot=True, template=""),
    Column("break_even_searched_to", "Searched to (req/s)", kind="decimal", snapshot=True, template=""),
    Column("first_replicas", "Replicas at Y_λ·r_a: n or x", kind="count", snapshot=True, template=""),
    Column("second_replicas", "… y", kind="count", snapshot=True, template=""),
    Column("break_even_api_day_cost", "API a day at Y_λ", kind="money",
           template=f'=IF({ABOVE},hours_per_day*seconds_per_hour*{{break_even_rate}}*api_retry_factor*'
                    '{cost_per_request},"")'),
    Column("break_even_day_cost", "Self-hosting a day at Y_λ", kind="money",
           template=f'=IF({ABOVE},{pools("{first_replicas}", "{second_replicas}")},"")'),
    Column("break_even_tokens_per_day", "Break-even Y: output tokens a day", kind="count",
           template=f'=IF({ABOVE},hours_per_day*seconds_per_hour*{O}*{{break_even_rate}},"")'),
    Column("break_even_requests_per_day", "… requests a day", kind="count",
           template=f'=IF({ABOVE},hours_per_day*seconds_per_hour*{{break_even_rate}},"")'),
    Column("break_even_holds", "Self-hosting at most the API at Y_λ", kind="bool", warn="false",
           template=f'=IF({{offer}}="","",IF({ABOVE},ROUND({{break_even_day_cost}},9)<=ROUND('
                    '{break_even_api_day_cost},9),TRUE))'),
]
WITHOUT_FLEET = [
    Column("own_cost_per_million_output", "Self-hosting per output million", kind="money",
           template=priced("IF(ISNUMBER(api_path_price),api_path_price*per_million/(seconds_per_hour*"
                           "serving_tokens_per_s_per_gpu),api_path_price)")),  # a price's n/a: its reason
    Column("break_even", "Self-hosting costs less", kind="text",
           template=priced(f'IF(ISNUMBER({{own_cost_per_million_output}}),IF({{own_cost_per_million_output}}<='
                           f'{{cost_per_million_output}},"{engine.NO_FLEET_ANY}","{engine.NO_FLEET_NONE}"),'
                           '{own_cost_per_million_output})')),
    Column("break_even_holds", "Holds", kind="bool", template='=IF({offer}="","",TRUE)'),
]


def money_text(cell: str, decimals: int, symbol: str) -> str:
    """An amount in words as TEXT rounds it, with the currency's symbol before it or its code after."""
    shown = f'TEXT({cell},"#,##0{"." + "0" * decimals if decimals else ""}")'
    return f'"{symbol}"&{shown}' if len(symbol) == 1 else f'{shown}&" {symbol}"'


def count_text(cell: str) -> str:
    return f'TEXT({cell},"#,##0")'


PATH_WORDS = ('IF(budget_path="owned","owning",IF(budget_path="committed",IF(pricing_serving_baseline_tier='
              '"committed_3y","renting with a 3-year commitment","renting with a 1-year commitment"),'
              '"renting on demand"))')
APOSTROPHE = "'"
FLAT = " On a flat day at launch prices, self-hosting this configuration costs"


def words_columns(symbol: str, fleet: bool) -> list[Column]:
    """The Cover's line for each offer (docs/method.md §13), live: what it would cost, and when self-hosting costs
    less; the rank of its total (the cheapest first, the earlier slot on a tie)."""
    cost = (f'"The same traffic on "&{{offer}}&" would cost "&{money_text("{total_cost}", 0, symbol)}&" over the plan, '
            f'against "&IF(ISNUMBER(api_serving_total_cost),{money_text("api_serving_total_cost", 0, symbol)},'
            f'api_serving_total_cost)&" for "&{PATH_WORDS}&" (the plan{APOSTROPHE}s serving cost)."&'
            f'IF({{model}}<>model," ("&{{offer}}&" serves "&{{model}}&", not the plan{APOSTROPHE}s model)","")')
    if fleet:
        shape = (f'" requests of "&{count_text("serving_prompt_tokens")}&" prompt and "&{count_text(O)}&'
                 '" output tokens)."')
        then = (f'IF({ABOVE},"{FLAT} less at any traffic above "&{count_text("{break_even_tokens_per_day}")}&'
                f'" output tokens a day ("&{count_text("{break_even_requests_per_day}")}&{shape},'
                f'IF({{break_even}}="{engine.NEVER}","{FLAT} more at any traffic: its cost never falls below "&'
                f'{money_text("{floor_per_request}", 7, symbol)}&" a request, the offer{APOSTROPHE}s price is "&'
                f'{money_text("api_retry_factor*{cost_per_request}", 7, symbol)}&".",'
                '" No break-even traffic: "&{break_even}&"."))')
    else:
        then = ('" At launch prices, self-hosting costs less "&{break_even}&": its GPU-hours grow with the tokens, "&'
                f'{money_text("{own_cost_per_million_output}", 4, symbol)}&" per million output tokens against the '
                f'offer\'s "&{money_text("{cost_per_million_output}", 4, symbol)}&", input tokens included."')
    return [
        Column("rank", "Rank by total", kind="count",
               template='=IF(ISNUMBER({total_cost}),COUNTIF(api_offer_total_cost,"<"&{total_cost})+COUNTIFS('
                        'api_offer_total_cost,{total_cost},api_offer_slot,"<"&{label})+1,"")'),
        Column("slot", "Slot", kind="count", template="={label}"),
        Column("words_cost", "In words: the cost", kind="text", template=priced(cost)),
        Column("words_break_even", "In words: the break-even", kind="text", template=priced(then)),
        Column("words", "In words", kind="text", template=priced("{words_cost}&{words_break_even}")),
    ]


def answer_formula(offers: int) -> str:
    """Each offer's words in the order of their totals, the cheapest first, joined by a space."""
    return "=" + "&".join(f'IFERROR({"" if k == 1 else chr(34) + " " + chr(34) + "&"}INDEX(api_offer_words,MATCH({k},'
                          'api_offer_rank,0)),"")' for k in range(1, offers + 1))


def month_columns(a_req: list[str]) -> list[Column]:
    """Each slot's cost in a month of the Budget's calendar, API_k = T_k/o·r_a·a_req·e_k; `a_req`: each slot's
    price-per-attempt cell (its own, so that a slot's month costs read no other slot)."""
    return [Column(f"cost_{i + 1}", f"Offer {i + 1} per month", kind="money0",
                   template=f'=IF(AND(INDEX(calendar_in_plan,{{label}}),ISNUMBER({cell})),INDEX(calendar_served_tokens,'
                            f'{{label}})/{O}*api_retry_factor*{cell}*INDEX(calendar_escalation,{{label}}),"")')
            for i, cell in enumerate(a_req)]


SCALARS = [
    Row("retry_factor", "Attempts per first attempt r_a", kind="decimal", unit="", name="api_retry_factor",
        formula="=1"),
    Row("path_price", "The plan's price per GPU-hour on its path π", kind="money", unit="", name="api_path_price",
        formula='=IF(budget_path="owned",own_cost_per_gpu_hour,IF(budget_path="committed",'
                "IF(ISNUMBER(price_baseline_effective),MIN(price_baseline_effective,price_on_demand),"
                "price_baseline_effective),price_on_demand))"),
    Row("serving_total_cost", "The plan's serving cost over the plan, with contingency", kind="money0", unit="",
        name="api_serving_total_cost", formula="=unit_serving_cost"),
]
RETRIES = "=IF(fleet_retries,1/fleet_quality,1)"
TOKENS = [  # the months' tokens over the plan (each month's: its attempts × the request's tokens, JSON's months)
    Row("attempts", "Attempts over the plan", kind="count", unit="",
        formula=f"=SUM(calendar_served_tokens)/{O}*api_retry_factor"),
    Row("input_tokens", "Input tokens over the plan", kind="giga", formula="={attempts}*serving_prompt_tokens"),
    Row("cached_input_tokens", "… of them cached", kind="giga",
        formula="={attempts}*serving_prefix_hit_rate*serving_prompt_tokens"),
    Row("output_tokens", "Output tokens over the plan", kind="giga", formula="={attempts}*" + O),
]
CHEAPEST = [
    Row("offers_compared", "Offers compared", kind="count", unit="", name="api_offers_compared",
        formula='=COUNTIF(api_offers,"?*")'),
    Row("cheapest_offer", "The cheapest over the plan", kind="text", unit="", name="api_cheapest_offer",
        formula='=IFERROR(INDEX(api_offers,MATCH(MIN(api_offer_total_cost),api_offer_total_cost,0)),"n/a")'),
    Row("cheapest_total_cost", "… its cost over the plan", kind="money0", unit="", name="api_cheapest_total_cost",
        formula='=IF(COUNT(api_offer_total_cost)=0,"n/a",MIN(api_offer_total_cost))'),
    Row("cheapest_cost_per_request", "… its price per attempt", kind="money5", unit="",
        name="api_cheapest_cost_per_request",
        formula='=IFERROR(INDEX(api_offer_cost_per_request,MATCH(api_cheapest_offer,api_offers,0)),"n/a")'),
    Row("cheapest_break_even_tokens_per_day", "… its break-even Y (blank: never)", kind="count",
        unit="", name="api_cheapest_break_even_tokens_per_day",
        formula='=IFERROR(INDEX(api_offer_break_even_tokens_per_day,MATCH(api_cheapest_offer,api_offers,0)),"")'),
]
NO_BREAK_EVEN = '=""'  # without a fleet there is no break-even traffic


def _values(o: dict | None, fleet: bool) -> dict:
    """A slot's cached values, as the engine computed them ("" on an empty slot)."""
    if o is None:
        return {}
    found = {**{k: "" if v is None else v for k, v in o.items()},  # None: a blank cell, as its formula gives
             "at": o["catalog_row"], "price_input": o["price_input_per_million"],
             "cached_price": o["price_cached_input_per_million"] if o["price_cached_input_per_million"] is not None
             else o["price_input_per_million"], "price_output": o["price_output_per_million"]}
    if fleet:
        replicas = o["break_even_replicas"] or []
        above = o["break_even"] == "above"
        if o["break_even"] == engine.NO_CONFIGURATION:
            found["floor_per_request"] = engine.NO_CONFIGURATION
        found |= {"first_replicas": replicas[0] if replicas else "",
                  "second_replicas": replicas[1] if len(replicas) > 1 else "",
                  "break_even_rate": o["break_even_rate"] if above else "",
                  "break_even_searched_to": o["break_even_searched_to"] if above else ""}
        found |= {k: "" for k in ("break_even_api_day_cost", "break_even_day_cost", "break_even_tokens_per_day",
                                  "break_even_requests_per_day") if not above}
    return found


WIDTHS = {"offer": 30, "source": 30, "words_cost": 40, "words_break_even": 40, "words": 60, "provider": 14,
          "model": 14}
PRINTED_WITH_FLEET = ("offer", "cost_per_request", "cost_per_million_output", "total_cost", "break_even",
                      "break_even_tokens_per_day", "break_even_requests_per_day")
PRINTED_WITHOUT_FLEET = ("offer", "cost_per_request", "cost_per_million_output", "total_cost",
                         "own_cost_per_million_output", "break_even")


def literal(text: str) -> str:
    """Text as a formula: literals of at most 255 characters (a spreadsheet's limit for one) joined; each of at most
    120 characters of the text, so that doubling its quotes keeps it within the limit."""
    parts = [text[i:i + 120].replace('"', '""') for i in range(0, len(text), 120)]
    return "=" + "&".join(f'"{part}"' for part in parts)


def _chart(book: kit.Book, sheet: kit.Sheet) -> None:
    """Each offer's cost over the plan."""
    sheet.skip()
    sheet.column_chart([("Over the plan, with contingency", sheet.series("offer"), sheet.series("total_cost"),
                         "#4472C4")], title="The same traffic on each offer, over the plan",
                       y_axis={"num_format": book.number_format("money0")}, height=280, width=640)


def write(book: kit.Book, results) -> kit.Sheet:
    """The sheet: what every offer reads, a row per compared offer (one slot per `api.offers` cell on Inputs), the
    cheapest, the words, a chart and the months."""
    table, scenario = results.api, results.scenario
    fleet = scenario.fleet is not None
    every = OFFER + (WITH_FLEET if fleet else WITHOUT_FLEET) + words_columns(scenario.currency_symbol, fleet)
    first_keys = PRINTED_WITH_FLEET if fleet else PRINTED_WITHOUT_FLEET  # what prints, first
    columns = [c for key in first_keys for c in every if c.key == key] + [c for c in every if c.key not in first_keys]
    sheet = book.sheet(SHEET, [(c.header, WIDTHS.get(c.key, 12)) for c in columns], label_width=6, unit_width=2,
                       note_width=2)
    sheet.scalar_col = 2
    sheet.money_na = True  # an offer's money whose inputs fail reads n/a, as the Budget's does
    sheet.title("The same traffic on a hosted API", "docs/method.md §13: the plan's requests priced per token on "
                "each compared Catalog offer, on the plan's calendar; and the traffic above which self-hosting "
                "costs less. Prices are USD on Catalog, converted here (fx).")
    sheet.section("What every offer reads")
    sheet.rows([replace(r, formula=RETRIES) if r.key == "retry_factor" and fleet else r for r in SCALARS],
               table.scalars)
    if fleet:
        sheet.rows(POOL_PRICES, table.scalars)
    sheet.skip()
    _offers(book, sheet, table, columns, fleet)
    answer_row = sheet.row_index
    sheet.row(Row("answer", "Each offer in words, the cheapest first", kind="text", unit="", name="api_answer",
                  formula=answer_formula(len(table.offers))), table.headline["api_answer"])
    sheet.row(Row("caveat", "What the comparison leaves out", kind="text", unit="", name="api_caveat",
                  formula=literal(engine.CAVEAT)), engine.CAVEAT)
    blank = sheet.row_index
    _chart(book, sheet)
    sheet.skip()
    if fleet:  # the prices, the totals and the break-even of each offer, a page wide (the words: on the Cover)
        sheet.printed_rows, sheet.printed_cols = answer_row - 1, len(first_keys)
    else:  # on screen only: without a fleet there is no break-even to print, and the Cover says the words; an
        # empty print area prints no page
        sheet.printed_from, sheet.printed_rows, sheet.printed_cols = blank, blank, 1
    sheet.label_chars = 0  # column A as wide as the slot numbers: the labels run across the empty cells beside
    sheet.long_labels.clear()  # … unwrapped
    sheet.section("Tokens over the plan (the Budget's months: its served tokens ÷ o × r_a attempts)")
    sheet.rows(TOKENS, {key: sum(m[key] for m in table.months) for key in ("attempts", "input_tokens",
                                                                          "cached_input_tokens", "output_tokens")})
    sheet.skip()
    _months(book, sheet, table, len(results.cost.rows))
    return sheet


def _offers(book: kit.Book, sheet: kit.Sheet, table, columns: list[Column], fleet: bool) -> None:
    """A row per compared offer, each column named api_offer_<key> (the offers themselves api_offers), and the
    cheapest."""
    sheet.section(f"Each offer compared (at most {MAX_OFFERS}: api.offers on Inputs)")
    ranks = {o["offer"]: k for k, o in enumerate(table.ranked, start=1)}
    values = [{c.key: "" for c in columns} | _values(o, fleet) | {"slot": i + 1, "rank": ranks[o["offer"]]}
              for i, o in enumerate(table.offers)]
    _, first, last = sheet.records(list(range(1, len(values) + 1)), columns, values, label_header="Slot")
    for c in columns:
        if c.key in ("words_cost", "words_break_even"):
            continue
        col = sheet.places[c.key].col
        name = "api_offers" if c.key == "offer" else f"api_offer_{c.key}"
        book.define(name, SHEET, f"{kit.xl_rowcol_to_cell(first, col, True, True)}:"
                                 f"{kit.xl_rowcol_to_cell(last, col, True, True)}")
    sheet.skip()
    cheapest = CHEAPEST if fleet else [replace(r, formula=NO_BREAK_EVEN) if r.key.startswith("cheapest_break_even")
                                       else r for r in CHEAPEST]
    sheet.rows(cheapest, table.headline | {k.removeprefix("api_"): v for k, v in table.headline.items()})


def _months(book: kit.Book, sheet: kit.Sheet, table, month_rows: int) -> None:
    """Every row of the Budget's calendar (its spare rows too, so an edit that lengthens the plan is priced): each
    offer's cost (its own price cell's), named api_month_cost_<slot>."""
    sheet.section("Each offer's cost by month of the Budget's calendar (escalated; blank outside the plan)")
    by_month = {m["month"]: m for m in table.months}
    place = sheet.places["cost_per_request"]
    columns = month_columns([kit.xl_rowcol_to_cell(place.row + i, place.col, True, True)
                             for i in range(len(table.offers))])
    values = []
    for k in range(1, month_rows + 1):
        m = by_month.get(k)
        row = {c.key: "" for c in columns}
        if m is not None:
            row |= {f"cost_{i + 1}": m[o["offer"]] if isinstance(o["cost_per_request"], float) else ""
                    for i, o in enumerate(table.offers)}
        values.append(row)
    _, first, last = sheet.records(list(range(1, month_rows + 1)), columns, values, label_header="Month k",
                                   alike=True)
    for i in range(len(table.offers)):
        col = sheet.places[f"cost_{i + 1}"].col
        book.define(f"api_month_cost_{i + 1}", SHEET, f"{kit.xl_rowcol_to_cell(first, col, True, True)}:"
                                                      f"{kit.xl_rowcol_to_cell(last, col, True, True)}")


KEY_RESULTS = [
    KeyResult("api_answer", "The same traffic on a hosted API, at each offer's list prices (API sheet)", kind="text",
              unit="", what_if=True),
    KeyResult("api_caveat", "… what the comparison leaves out", kind="text", unit="", what_if=True),
]
CHECKS = [  # an offer not on Catalog or with a price outside its limits fails its Inputs and Catalog checks, which
    # guard every formula that reads it (n/a)
    Check("api_break_even_holds", "API: self-hosting costs at most the API at each break-even rate",
          formula="AND(api_offer_break_even_holds)", note="run the planner again after an edit"),
]
