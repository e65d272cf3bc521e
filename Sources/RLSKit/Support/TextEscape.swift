/// Escaping text for a report format (YAML, XML): each scalar found in `table` is replaced,
/// `other` may replace any scalar the table does not name (nil keeps it).
enum TextEscape {
    static func escape(
        _ s: String, _ table: [Unicode.Scalar: String], other: (Unicode.Scalar) -> String? = { _ in nil }
    ) -> String {
        var out = ""
        for c in s.unicodeScalars {
            if let r = table[c] ?? other(c) { out += r } else { out.unicodeScalars.append(c) }
        }
        return out
    }
}
