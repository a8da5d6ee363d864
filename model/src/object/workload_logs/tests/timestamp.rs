use crate::object::workload_logs::timestamp::{split_timestamp, LogTime};

#[test]
fn the_apiserver_prefix_is_split_to_the_nanosecond() {
    let (time, message) = split_timestamp("2026-12-07T01:02:03.123456789Z GET /healthz 200");
    let time = time.expect("a timestamp");
    assert_eq!(message, "GET /healthz 200");
    assert_eq!(time.nanos(), 123_456_789);
    assert_eq!(time.rfc3339_nano(), "2026-12-07T01:02:03.123456789Z");
    assert_eq!(time.time_of_day(), "01:02:03.123");
    assert_eq!(time.to_string(), time.rfc3339_nano());
    // Go's RFC3339Nano drops trailing zeros; nine digits are shown all the same.
    let (short, _) = split_timestamp("2026-12-07T01:02:03.5Z x");
    assert_eq!(
        short.map(LogTime::rfc3339_nano).as_deref(),
        Some("2026-12-07T01:02:03.500000000Z")
    );
    // An empty message: the time alone, with or without its space.
    assert_eq!(split_timestamp("2026-12-07T01:02:03Z ").1, "");
    let whole_second = LogTime::parse("2026-12-07T01:02:03Z");
    assert!(whole_second.is_some());
    assert_eq!(split_timestamp("2026-12-07T01:02:03Z"), (whole_second, ""));
}

#[test]
fn offsets_are_read_into_utc() {
    let utc = LogTime::parse("2026-12-07T01:02:03.000000001Z");
    assert_eq!(LogTime::parse("2026-12-07T03:02:03.000000001+02:00"), utc);
    assert_eq!(LogTime::parse("2026-12-06T23:32:03.000000001-01:30"), utc);
    assert_eq!(LogTime::parse("2026-12-07T01:02:03.000000001+00:00"), utc);
    // Digits past the ninth are below a nanosecond: cut off.
    assert_eq!(LogTime::parse("2026-12-07T01:02:03.0000000019Z"), utc);
}

#[test]
fn lines_without_a_time_are_left_whole() {
    for line in [
        "",
        "plain text",
        "unable to retrieve container logs for containerd://abc",
        "2026-12-07 01:02:03 a date with a space",
        "2026-13-07T01:02:03Z month 13",
        "2026-12-07T01:02:03 no zone",
        "12345678901234567890123 digits",
    ] {
        assert_eq!(split_timestamp(line), (None, line), "{line}");
    }
}

#[test]
fn times_order_as_time_goes_and_round_trip() {
    let times: Vec<LogTime> = [
        "1969-12-31T23:59:59.999999999Z",
        "1970-01-01T00:00:00Z",
        "2000-02-29T12:00:00.000000001Z",
        "2026-12-07T01:02:03.123456789Z",
        "2026-12-07T01:02:03.123456790Z",
    ]
    .iter()
    .map(|text| LogTime::parse(text).expect(text))
    .collect();
    assert!(times.windows(2).all(|pair| pair[0] < pair[1]));
    assert!(LogTime::MIN < times[0]);
    for time in times {
        assert_eq!(LogTime::parse(&time.rfc3339_nano()), Some(time));
    }
    assert_eq!(
        LogTime::from_unix(1, 1_500_000_000),
        LogTime::from_unix(2, 500_000_000)
    );
    assert_eq!(LogTime::from_unix(-1, 999_999_999).unix_nanos(), -1);
}
