// Order statistics for the benchmark's samples (milliseconds).

/** Nearest-rank percentile of ascending `sorted`, p in (0, 1]. */
function rank(sorted, p) {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}

/** n, min, median, p95, p99, max and mean of `samples`, rounded to the microsecond. */
export function summary(samples) {
  if (!samples?.length) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (x) => Math.round(x * 1000) / 1000;
  return {
    n: sorted.length,
    min: round(sorted[0]),
    median: round(rank(sorted, 0.5)),
    p95: round(rank(sorted, 0.95)),
    p99: round(rank(sorted, 0.99)),
    max: round(sorted.at(-1)),
    mean: round(sorted.reduce((s, x) => s + x, 0) / sorted.length),
  };
}
