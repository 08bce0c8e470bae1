// Sum a month's charges and refunds per currency from the Stripe API (read-only restricted key).
import "dotenv/config";

const key = process.env.STRIPE_API_KEY;
const month = process.argv[2];
if (!key || !/^\d{4}-\d{2}$/.test(month ?? "")) {
  console.error("usage: STRIPE_API_KEY=rk_... revenue.mjs YYYY-MM");
  process.exit(2);
}
const start = Date.UTC(+month.slice(0, 4), +month.slice(5) - 1, 1) / 1000;
const end = Date.UTC(+month.slice(0, 4), +month.slice(5), 1) / 1000;

async function* list(resource) {
  let after;
  for (;;) {
    const params = new URLSearchParams({ limit: "100", "created[gte]": start, "created[lt]": end });
    if (after) params.set("starting_after", after);
    const res = await fetch(`https://api.stripe.com/v1/${resource}?${params}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    if (!res.ok) throw new Error(`${resource}: ${res.status} ${await res.text()}`);
    const page = await res.json();
    yield* page.data;
    if (!page.has_more) return;
    after = page.data.at(-1).id;
  }
}

const totals = {};
for await (const charge of list("charges")) {
  if (charge.paid) totals[charge.currency] = (totals[charge.currency] ?? 0) + charge.amount;
}
for await (const refund of list("refunds")) {
  totals[refund.currency] = (totals[refund.currency] ?? 0) - refund.amount;
}
for (const [currency, cents] of Object.entries(totals)) {
  console.log(`${currency.toUpperCase()} ${(cents / 100).toFixed(2)}`);
}
