//! Kubernetes resource quantities (`100m`, `0.5`, `128Mi`, `1Gi`, `1e3`, `1k`), as
//! `resource.Quantity` reads them: a signed decimal number, then one suffix: binary SI
//! (`Ki Mi Gi Ti Pi Ei`), decimal SI (`n u m` `""` `k M G T P E`) or a decimal exponent
//! (`e3`, `E-2`). Enough for summing requests and usage and showing them; not a
//! round-tripping canonical form. The metrics API writes usage as metrics-server does
//! (`24091116n` cores, `18664Ki` bytes); requests and limits come as people wrote them.

/// A quantity's value in base units (cores, bytes): `100m` is 0.1, `1Ki` is 1024. `None` for
/// anything `resource.ParseQuantity` would refuse (an empty string, two suffixes, spaces).
pub fn parse_quantity(text: &str) -> Option<f64> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let number_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let (number, suffix) = rest.split_at(number_len);
    // Digits, at most one point, at least one digit.
    if number.bytes().filter(|b| *b == b'.').count() > 1
        || !number.bytes().any(|b| b.is_ascii_digit())
    {
        return None;
    }
    let value: f64 = number.parse().ok()?;
    let scale = suffix_scale(suffix)?;
    let value = value * scale;
    value
        .is_finite()
        .then_some(if negative { -value } else { value })
}

fn suffix_scale(suffix: &str) -> Option<f64> {
    Some(match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        exponent if exponent.starts_with(['e', 'E']) => {
            let digits = &exponent[1..];
            let unsigned = digits.strip_prefix(['+', '-']).unwrap_or(digits);
            if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let power: i32 = digits.parse().ok()?;
            10f64.powi(power)
        }
        _ => return None,
    })
}

/// CPU in millicores, rounded up as `Quantity.MilliValue` does (`0.1` is 100, `1` is 1000).
pub fn cpu_millis(text: &str) -> Option<i64> {
    parse_quantity(text).map(|cores| (cores * 1000.0 - 1e-6).ceil() as i64)
}

/// Memory (or any count) in whole units, rounded up as `Quantity.Value` does.
pub fn whole_units(text: &str) -> Option<i64> {
    parse_quantity(text).map(|value| (value - 1e-6).ceil() as i64)
}

/// CPU in nanocores (the metrics API's unit), rounded up as `Quantity.ScaledValue(Nano)`.
pub fn cpu_nanos(text: &str) -> Option<i64> {
    parse_quantity(text).map(|cores| (cores * 1e9 - 1e-3).ceil() as i64)
}

/// Nanocores as `kubectl top` prints them: millicores rounded up (`Quantity.MilliValue`),
/// `24m`.
pub fn format_cpu_top(nanos: i64) -> String {
    format!("{}m", ceil_div(nanos, 1_000_000))
}

/// Bytes as `kubectl top` prints them: whole mebibytes, rounded down, `18Mi`.
pub fn format_memory_top(bytes: i64) -> String {
    format!("{}Mi", bytes.div_euclid(1024 * 1024))
}

/// Nanocores in millicores, rounded up as `Quantity.MilliValue` does.
pub fn nanos_to_millis(nanos: i64) -> i64 {
    ceil_div(nanos, 1_000_000)
}

fn ceil_div(value: i64, by: i64) -> i64 {
    let quotient = value.div_euclid(by);
    if value.rem_euclid(by) == 0 {
        quotient
    } else {
        quotient + 1
    }
}

/// Millicores as people write them: `250m`, `1.5`, `4` (cores).
pub fn format_cpu(millis: i64) -> String {
    if millis % 1000 == 0 {
        format!("{}", millis / 1000)
    } else if millis < 1000 {
        format!("{millis}m")
    } else {
        let cores = millis as f64 / 1000.0;
        trim_zeros(&format!("{cores:.2}"))
    }
}

/// Bytes in the largest binary unit that keeps a number of at least one: `512Mi`, `1.5Gi`.
pub fn format_bytes(bytes: i64) -> String {
    const UNITS: [&str; 6] = ["", "Ki", "Mi", "Gi", "Ti", "Pi"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let number = if unit == 0 {
        format!("{bytes}")
    } else {
        trim_zeros(&format!("{value:.1}"))
    };
    format!("{number}{}", UNITS[unit])
}

fn trim_zeros(text: &str) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_as_kubernetes_writes_them() {
        let cases: [(&str, f64); 16] = [
            ("100m", 0.1),
            ("0.5", 0.5),
            ("1", 1.0),
            ("128Mi", 134_217_728.0),
            ("1Gi", 1_073_741_824.0),
            ("1e3", 1000.0),
            ("1E3", 1000.0),
            ("1k", 1000.0),
            ("2M", 2e6),
            ("1.5Gi", 1.5 * 1_073_741_824.0),
            ("500u", 0.0005),
            ("250n", 2.5e-7),
            ("3E", 3e18),
            ("1e-3", 0.001),
            ("+2", 2.0),
            (".5", 0.5),
        ];
        for (text, expected) in cases {
            let parsed = parse_quantity(text).unwrap_or_else(|| panic!("{text} parses"));
            assert!(
                (parsed - expected).abs() <= expected.abs() * 1e-12,
                "{text}: {parsed} != {expected}"
            );
        }
        assert_eq!(parse_quantity("-1Ki"), Some(-1024.0));
    }

    #[test]
    fn what_kubernetes_refuses_is_refused() {
        for text in [
            "", "Mi", "1 Mi", "1MiB", "1..2", "1.2.3", "abc", "1e", "1e+", "1ki", "1mi", ".",
        ] {
            assert_eq!(parse_quantity(text), None, "{text:?}");
        }
    }

    #[test]
    fn millicores_and_bytes_round_up() {
        assert_eq!(cpu_millis("100m"), Some(100));
        assert_eq!(cpu_millis("0.1"), Some(100));
        assert_eq!(cpu_millis("1"), Some(1000));
        assert_eq!(cpu_millis("1.0005"), Some(1001));
        assert_eq!(cpu_millis("250u"), Some(1));
        assert_eq!(whole_units("128Mi"), Some(134_217_728));
        assert_eq!(whole_units("1e3"), Some(1000));
        assert_eq!(whole_units("0.5"), Some(1));
    }

    #[test]
    fn the_metrics_api_units_and_the_issue_list() {
        // Every suffix the metrics API and pod specs use, and exponent forms.
        let cases: [(&str, f64); 13] = [
            ("24091116n", 0.024_091_116),
            ("250u", 0.000_25),
            ("120m", 0.12),
            ("18664Ki", 18664.0 * 1024.0),
            ("64Mi", 64.0 * 1024.0 * 1024.0),
            ("2Gi", 2.0 * 1024.0 * 1024.0 * 1024.0),
            ("3k", 3000.0),
            ("5M", 5e6),
            ("7G", 7e9),
            ("12e-3", 0.012),
            ("1.5E2", 150.0),
            ("1e+3", 1000.0),
            ("129e6", 129e6),
        ];
        for (text, expected) in cases {
            let parsed = parse_quantity(text).unwrap_or_else(|| panic!("{text} parses"));
            assert!(
                (parsed - expected).abs() <= expected.abs() * 1e-12,
                "{text}: {parsed} != {expected}"
            );
        }
        assert_eq!(cpu_nanos("24091116n"), Some(24_091_116));
        assert_eq!(cpu_nanos("120m"), Some(120_000_000));
        assert_eq!(cpu_nanos("1"), Some(1_000_000_000));
        assert_eq!(cpu_nanos("1e-9"), Some(1));
        assert_eq!(cpu_nanos("x"), None);
    }

    #[test]
    fn arithmetic_on_parsed_quantities() {
        // Sums and ratios as a pod's containers add up: 100m + 0.5 = 600m; 64Mi + 64Mi = 128Mi.
        let cpu: i64 = ["100m", "0.5"].iter().filter_map(|q| cpu_millis(q)).sum();
        assert_eq!(format_cpu(cpu), "600m");
        let memory: i64 = ["64Mi", "65536Ki"]
            .iter()
            .filter_map(|q| whole_units(q))
            .sum();
        assert_eq!(format_bytes(memory), "128Mi");
        let nanos: i64 = ["24091116n", "18401560n"]
            .iter()
            .filter_map(|q| cpu_nanos(q))
            .sum();
        assert_eq!(nanos, 42_492_676);
        assert_eq!(nanos_to_millis(nanos), 43);
        assert_eq!(nanos_to_millis(42_000_000), 42);
        assert_eq!(nanos_to_millis(0), 0);
    }

    #[test]
    fn as_kubectl_top_prints_them() {
        // nodes.json and top-nodes.txt: node-1's 343128216n is `344m`, 959220Ki `936Mi`.
        assert_eq!(format_cpu_top(343_128_216), "344m");
        assert_eq!(format_memory_top(959_220 * 1024), "936Mi");
        assert_eq!(format_cpu_top(24_000_000), "24m");
        assert_eq!(format_memory_top(1024 * 1024 - 1), "0Mi");
    }

    #[test]
    fn formatted_as_people_write_them() {
        assert_eq!(format_cpu(250), "250m");
        assert_eq!(format_cpu(4000), "4");
        assert_eq!(format_cpu(1500), "1.5");
        assert_eq!(format_cpu(1250), "1.25");
        assert_eq!(format_bytes(512), "512");
        assert_eq!(format_bytes(128 * 1024 * 1024), "128Mi");
        assert_eq!(format_bytes(3 * 1024 * 1024 * 1024 / 2), "1.5Gi");
        assert_eq!(format_bytes(8 * 1024 * 1024 * 1024), "8Gi");
    }
}
