"""The scenarios' tool code: ordinary Python over the scenario's SQLite database.

None of it knows about models. Each handler takes the checked arguments and returns a dict whose
`ok` says whether it worked; a failure carries an `error` a model can repeat to a person, because
an empty or missing result reads to a model like "nothing found" and it starts to invent.
"""

from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from lib.live.tools import Context

CENT = Decimal("0.01")
RATIO = Decimal("0.0001")


def _money(value) -> Decimal | None:
    """A finite Decimal from a number the model wrote, or None."""
    try:
        # str() first: Decimal(0.1) would carry the float's binary error into the sum.
        amount = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
    return amount if amount.is_finite() else None


# --- Hengxin Bank expenses ------------------------------------------------------------------------


def query_expense(ctx: Context, args: dict) -> dict:
    """The signed-in employee's most recent expense form with the given status."""
    status = args.get("status", "submitted")
    with ctx.database.connect() as db:
        row = db.execute("SELECT * FROM expenses WHERE user_id = ? AND status = ? ORDER BY submit_date DESC LIMIT 1",
                         (args["user_id"], status)).fetchone()
    if row is None:
        return {"ok": False, "error": f"No {status} expense form found for this employee."}
    return {"ok": True, "expense_id": row["expense_id"], "amount": Decimal(row["amount"]), "status": row["status"],
            "submit_date": row["submit_date"]}


def query_travel_policy(ctx: Context, args: dict) -> dict:
    """The travel standard for a job level and city tier."""
    with ctx.database.connect() as db:
        row = db.execute("SELECT * FROM travel_policy WHERE job_level = ? AND city_tier = ?",
                         (args["job_level"], args["city_tier"])).fetchone()
    if row is None:
        return {"ok": False, "error": f"No travel standard for job level {args['job_level']} in city tier "
                                      f"{args['city_tier']}. Do not guess one; ask for the job level."}
    hotel, meal = Decimal(row["hotel_limit"]), Decimal(row["meal_limit"])
    return {"ok": True, "job_level": row["job_level"], "city_tier": row["city_tier"], "hotel_limit": hotel,
            "meal_limit": meal, "total_limit": hotel + meal}


def calc_amount_over(ctx: Context | None, args: dict) -> dict:
    """By how much, and by what ratio, an amount exceeds a limit: cents first, then compare."""
    actual, limit = _money(args.get("actual_amount")), _money(args.get("limit_amount"))
    if actual is None or limit is None:
        return {"ok": False, "error": "The amounts must be finite numbers in yuan."}
    if actual < 0 or limit < 0:
        return {"ok": False, "error": "An amount cannot be negative."}
    if limit == 0:
        return {"ok": False, "error": "The limit is 0, so no overage ratio can be calculated; "
                                      "check the job level and city tier first."}
    # Quantize before comparing: compared first, 0.1 + 0.2 against 0.3 is "over" by an amount of 0.00.
    over = (actual - limit).quantize(CENT, rounding=ROUND_HALF_UP)
    is_over = over > 0
    if not is_over:
        over = Decimal("0.00")
    ratio = (over / limit).quantize(RATIO, rounding=ROUND_HALF_UP)
    return {"ok": True, "over_amount": over, "over_ratio": ratio, "is_over": is_over}


def create_expense_supplement(ctx: Context, args: dict) -> dict:
    """File a supplement for one of the signed-in employee's forms; writes to the database."""
    over = _money(args.get("over_amount"))
    if over is None or over <= 0:
        return {"ok": False, "error": "over_amount must be a positive amount in yuan, from calcAmountOver."}
    with ctx.database.connect() as db:
        form = db.execute("SELECT 1 FROM expenses WHERE expense_id = ? AND user_id = ?",
                          (args["expense_id"], ctx.session.get("user_id"))).fetchone()
        if form is None:
            return {"ok": False, "error": f"No expense form {args['expense_id']} belongs to this employee."}
        filed = db.execute("SELECT COUNT(*) FROM supplements").fetchone()[0]
        # Numbered from the bank's running sequence; the date is the scenario's day.
        supplement_id = f"BC-{ctx.now:%Y%m%d}-{417 + filed:04d}"
        created_at = f"{ctx.now:%Y-%m-%d %H:%M:%S}"
        db.execute("INSERT INTO supplements VALUES (?, ?, ?, ?, ?, 'submitted', ?)",
                   (supplement_id, args["expense_id"], ctx.session.get("user_id"),
                    str(over.quantize(CENT, rounding=ROUND_HALF_UP)), args["reason"], created_at))
    return {"ok": True, "supplement_id": supplement_id, "status": "submitted", "created_at": created_at}


# --- Larkfield help desk --------------------------------------------------------------------------


def get_order(ctx: Context, args: dict) -> dict:
    """One of the ticket's customer's orders; the customer id comes from the app."""
    with ctx.database.connect() as db:
        row = db.execute("SELECT * FROM orders WHERE order_id = ? AND customer_id = ?",
                         (args["order_id"], args["customer_id"])).fetchone()
    if row is None:
        return {"ok": False, "error": f"No order {args['order_id']} is available for this customer."}
    order = dict(row)
    order["items"] = json.loads(order["items"])
    return {"ok": True, "order": order}


# --- The online shop's order status ---------------------------------------------------------------


def get_order_status(ctx: Context, args: dict) -> dict:
    """The status and delivery estimate of one order."""
    with ctx.database.connect() as db:
        row = db.execute("SELECT order_id, status, delivery_estimate FROM orders WHERE order_id = ?",
                         (args["order_id"],)).fetchone()
    if row is None:
        return {"ok": False, "error": f"No order {args['order_id']} was found. Order numbers look like A-48213."}
    return {"ok": True, **dict(row)}


def search_orders_by_email(ctx: Context, args: dict) -> dict:
    """The orders placed with one email address."""
    with ctx.database.connect() as db:
        rows = db.execute("SELECT order_id, status, delivery_estimate FROM orders WHERE lower(email) = lower(?) "
                          "ORDER BY order_id", (args["email"],)).fetchall()
    return {"ok": True, "orders": [dict(r) for r in rows]}


def cancel_order(ctx: Context, args: dict) -> dict:
    """Cancel an order that has not shipped; writes to the database."""
    with ctx.database.connect() as db:
        row = db.execute("SELECT status FROM orders WHERE order_id = ?", (args["order_id"],)).fetchone()
        if row is None:
            return {"ok": False, "error": f"No order {args['order_id']} was found."}
        if row["status"] != "processing":
            why = f"Order {args['order_id']} is {row['status']} and can no longer be cancelled."
            return {"ok": False, "error": why}
        db.execute("UPDATE orders SET status = 'cancelled' WHERE order_id = ?", (args["order_id"],))
    return {"ok": True, "order_id": args["order_id"], "status": "cancelled"}


# --- Loan calculator ------------------------------------------------------------------------------


def calculate_loan_payment(ctx: Context | None, args: dict) -> dict:
    """The amortized monthly payment: rate/12 a month, years*12 payments, rounded half-up to cents."""
    principal, rate, years = _money(args.get("principal")), _money(args.get("rate")), args.get("years")
    if isinstance(years, float) and years.is_integer():
        years = int(years)  # JSON Schema's integer admits 30.0
    if principal is None or rate is None or principal <= 0:
        return {"ok": False, "error": "principal must be a positive amount and rate a number."}
    if rate < 0 or rate >= 1:
        return {"ok": False, "error": "rate is the annual rate as a decimal, e.g. 0.065 for 6.5%."}
    if not isinstance(years, int) or not 1 <= years <= 50:
        return {"ok": False, "error": "years must be a whole number from 1 to 50."}
    payments = years * 12
    monthly = rate / 12
    payment = principal / payments if monthly == 0 else principal * monthly / (1 - (1 + monthly) ** -payments)
    payment = payment.quantize(CENT, rounding=ROUND_HALF_UP)
    total = payment * payments
    return {"ok": True, "monthly_payment": payment, "number_of_payments": payments, "total_paid": total,
            "total_interest": total - principal}
