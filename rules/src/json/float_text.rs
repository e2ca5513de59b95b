//! A float written as serde_json writes it, without serde_json's float writer: the shortest
//! digits that read back as the same float, from `ryu` with its small tables (about 1 KB, where
//! serde_json's own writer, zmij, holds 17 KB of tables: a tenth of the npm package's data), laid
//! out as serde_json lays them out — `1.0`, `0.00001`, `1.5e-7`, `1e+21` (an exponent's sign
//! always written, where ryu writes `1e21`). A test holds the two to the same text for every kind
//! of float.

use std::io;

/// serde_json's output as `F` lays it out (its `CompactFormatter`, its `PrettyFormatter`), but
/// for its floats, which [`write_float`] writes.
pub(crate) struct ShortFloats<F>(pub(crate) F);

/// Every part of a value as `F` writes it (what a layout writes itself: the brackets, commas and
/// indents), but its floats.
impl<F: serde_json::ser::Formatter> serde_json::ser::Formatter for ShortFloats<F> {
    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        write_float(value, writer)
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        write_float(value, writer)
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_array(writer)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object(writer)
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(writer, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_value(writer)
    }
}

/// serde_json's compact layout (`to_string`'s), floats by ryu.
pub(crate) fn compact() -> ShortFloats<serde_json::ser::CompactFormatter> {
    ShortFloats(serde_json::ser::CompactFormatter)
}

/// serde_json's pretty layout (`to_string_pretty`'s: two spaces of indent), floats by ryu.
pub(crate) fn pretty() -> ShortFloats<serde_json::ser::PrettyFormatter<'static>> {
    ShortFloats(serde_json::ser::PrettyFormatter::new())
}

/// Writes a finite `value` (an `f64`, or an `f32` with its own shortest digits) as serde_json
/// does (it writes `null` for a float that is not finite, before a formatter is asked).
pub(crate) fn write_float<W: ?Sized + io::Write>(
    value: impl ryu::Float,
    writer: &mut W,
) -> io::Result<()> {
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format_finite(value);
    match text.split_once('e') {
        Some((digits, exponent)) if !exponent.starts_with('-') => {
            writer.write_all(digits.as_bytes())?;
            writer.write_all(b"e+")?;
            writer.write_all(exponent.as_bytes())
        }
        _ => writer.write_all(text.as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(value: f64) -> String {
        let mut out = Vec::new();
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, compact());
        serde::Serialize::serialize(&value, &mut serializer).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn floats_are_written_as_serde_json_writes_them() {
        let edges = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            2.5,
            100.0,
            1e15,
            1e16,
            1e21,
            1e100,
            1e-5,
            1e-6,
            1.5e-7,
            0.00012,
            123_456_789_012_345_680.0,
            5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
            9_007_199_254_740_993.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for value in edges {
            assert_eq!(
                written(value),
                serde_json::to_string(&value).unwrap(),
                "{value:e}"
            );
        }
        assert_eq!(written(1e21), "1e+21");
        assert_eq!(written(1.5e-7), "1.5e-7");
        assert_eq!(written(f64::NAN), "null");
        let mut power = 1.0f64;
        for _ in 0..2100 {
            for value in [
                power,
                -power,
                power * 3.0,
                f64::from_bits(power.to_bits() + 1),
            ] {
                if value.is_finite() {
                    assert_eq!(written(value), serde_json::to_string(&value).unwrap());
                }
            }
            power /= 2.0;
        }
    }

    #[test]
    fn values_are_written_as_serde_json_writes_them_compact_and_pretty() {
        let value = serde_json::json!({
            "b": [1, -2, 2.5, 1e21, 1.5e-7, null, true, "x\n\"y\u{1}"],
            "a": {"rate": 0.1, "empty": {}, "none": []},
            "n": 18446744073709551615u64,
        });
        assert_eq!(
            crate::json::to_text(&value).unwrap(),
            serde_json::to_string(&value).unwrap()
        );
        assert_eq!(
            crate::json::to_pretty_text(&value).unwrap(),
            serde_json::to_string_pretty(&value).unwrap()
        );
    }

    fn written_f32(value: f32) -> String {
        let mut out = Vec::new();
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, compact());
        serde::Serialize::serialize(&value, &mut serializer).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn an_f32_is_written_with_its_own_digits_as_serde_json_writes_it() {
        for value in [
            0.1f32,
            1.0,
            1e-5,
            1.5e-7,
            3.4e38,
            1e16,
            f32::MIN_POSITIVE,
            1e-45,
        ] {
            assert_eq!(
                written_f32(value),
                serde_json::to_string(&value).unwrap(),
                "{value:e}"
            );
        }
        assert_eq!(written_f32(0.1), "0.1");
    }

    proptest::proptest! {
        /// Every float's text is serde_json's, byte for byte: drawn from every bit pattern, and
        /// from the ranges where the layout changes (around `1e-5` and `1e16`).
        #[test]
        fn any_float_is_written_as_serde_json_writes_it(
            bits in proptest::prelude::any::<u64>(),
            near in -1e17f64..1e17,
            small in -1e-4f64..1e-4,
            bits32 in proptest::prelude::any::<u32>(),
        ) {
            for value in [f64::from_bits(bits), near, small, near.round()] {
                proptest::prop_assert_eq!(written(value), serde_json::to_string(&value).unwrap());
            }
            let value = f32::from_bits(bits32);
            proptest::prop_assert_eq!(written_f32(value), serde_json::to_string(&value).unwrap());
        }
    }
}
