//! Statistics of timing samples: the median with a distribution-free
//! confidence interval, and the mean with a Student-t interval.

use serde_json::{Value, json};

/// Two-sided 97.5% quantiles of Student's t for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The 97.5% quantile of Student's t with `df` degrees of freedom (the
/// normal 1.960 above 30 is within 4% for the sample counts used here).
pub fn t975(df: usize) -> f64 {
    match df {
        0 => f64::INFINITY,
        1..=30 => T975[df - 1],
        31..=60 => 2.000,
        61..=120 => 1.980,
        _ => 1.960,
    }
}

/// What a set of samples says: centre and 95% intervals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    /// The median's distribution-free interval `[x(j), x(n+1-j)]` (order
    /// statistics, 1-based), the narrowest with coverage of at least 95%, or
    /// `[min, max]` when no such interval exists for this n.
    pub median_lo: f64,
    pub median_hi: f64,
    /// The actual coverage of `[median_lo, median_hi]`: `1 - 2 P(B <= j-1)`, B ~ Bin(n, 1/2).
    pub median_level: f64,
    pub mean: f64,
    /// Sample standard deviation (n - 1 in the denominator; 0 for one sample).
    pub stddev: f64,
    /// `mean ± t(0.975, n-1) stddev / sqrt(n)` (infinite for one sample).
    pub mean_lo: f64,
    pub mean_hi: f64,
}

/// `P(B <= k)` for B ~ Binomial(n, 1/2).
fn binomial_half_cdf(n: usize, k: usize) -> f64 {
    let mut term = 0.5f64.powi(n as i32); // C(n, 0) / 2^n
    let mut sum = 0.0;
    for i in 0..=k.min(n) {
        sum += term;
        term = term * (n - i) as f64 / (i + 1) as f64;
    }
    sum
}

impl Summary {
    /// Summarises `samples` (at least one; NaNs are not expected).
    pub fn of(samples: &[f64]) -> Summary {
        let mut x = samples.to_vec();
        x.sort_by(f64::total_cmp);
        let n = x.len();
        assert!(n > 0, "a summary needs at least one sample");
        let median = if n % 2 == 1 {
            x[n / 2]
        } else {
            (x[n / 2 - 1] + x[n / 2]) / 2.0
        };
        // Largest j with P(B <= j-1) <= 0.025: [x(j), x(n+1-j)] covers >= 95%.
        let mut j = 1;
        while j < n / 2 && binomial_half_cdf(n, j) <= 0.025 {
            j += 1;
        }
        let median_level = 1.0 - 2.0 * binomial_half_cdf(n, j - 1);
        let mean = x.iter().sum::<f64>() / n as f64;
        let stddev = if n > 1 {
            (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let half = if n > 1 {
            t975(n - 1) * stddev / (n as f64).sqrt()
        } else {
            f64::INFINITY
        };
        Summary {
            n,
            median,
            median_lo: x[j - 1],
            median_hi: x[n - j],
            median_level,
            mean,
            stddev,
            mean_lo: mean - half,
            mean_hi: mean + half,
        }
    }

    /// The same summary with every value multiplied by `k > 0` (units).
    pub fn scaled(&self, k: f64) -> Summary {
        Summary {
            median: self.median * k,
            median_lo: self.median_lo * k,
            median_hi: self.median_hi * k,
            mean: self.mean * k,
            stddev: self.stddev * k,
            mean_lo: self.mean_lo * k,
            mean_hi: self.mean_hi * k,
            ..*self
        }
    }

    pub(crate) fn to_json(self) -> Value {
        let num = |v: f64| {
            if v.is_finite() { json!(v) } else { Value::Null }
        };
        json!({
            "n": self.n,
            "median": num(self.median),
            "median_ci": [num(self.median_lo), num(self.median_hi)],
            "median_ci_level": num(self.median_level),
            "mean": num(self.mean),
            "stddev": num(self.stddev),
            "mean_ci": [num(self.mean_lo), num(self.mean_hi)],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_half_cdf_small_cases() {
        // n = 4: P(B <= 1) = (1 + 4) / 16.
        assert!((binomial_half_cdf(4, 1) - 5.0 / 16.0).abs() < 1e-12);
        // n = 3: P(B <= 3) = 1.
        assert!((binomial_half_cdf(3, 3) - 1.0).abs() < 1e-12);
    }
}
