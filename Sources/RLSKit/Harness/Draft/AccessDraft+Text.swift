/// The one way catalog text enters a draft. Names, labels, policy text and setting values
/// come from whoever wrote the schema: a line break in any of them would start a live line
/// (`function public.leak() callable-by anyone`). A name is written only in a form the parser
/// reads back as that same name; everything else goes into comments, kept on one line.
extension AccessDraft {
    enum Text {
        /// Scalars that could end a line, or hide text, in an editor or the parser.
        static func unsafe(_ c: Unicode.Scalar) -> Bool {
            switch c.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: return true
            default: return (0x202A...0x202E).contains(c.value) || (0x2066...0x2069).contains(c.value)
            }
        }

        /// Catalog text for a comment: line breaks and control characters escaped (`\n`, `\u{1b}`).
        static func oneLine(_ s: String) -> String {
            guard s.unicodeScalars.contains(where: unsafe) else { return s }
            var out = ""
            for c in s.unicodeScalars {
                switch c {
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where unsafe(c): out += "\\u{" + String(c.value, radix: 16) + "}"
                default: out.unicodeScalars.append(c)
                }
            }
            return out
        }

        /// A name as an access file writes it ("double quotes" where needed), or nil when no
        /// access-file line can hold it. Checked by reading it back with the parser's own reader.
        static func name(_ s: String) -> String? {
            let q = SQL.ident(s)
            guard !s.isEmpty, !s.unicodeScalars.contains(where: unsafe), AccessFile.nameParts(q) == [s],
                AccessFile.splitWords(AccessFile.stripComment(q + " # x")) == [q]
            else { return nil }
            return q
        }

        /// `schema.name` for a block line, or nil.
        static func qualified(_ schema: String, _ name: String) -> String? {
            guard let s = Self.name(schema), let n = Self.name(name) else { return nil }
            return s + "." + n
        }

        /// A bare word (a bucket id, an enum label) that the parser reads back as itself, or nil;
        /// `?` would read as a question nobody answered.
        static func word(_ s: String) -> String? {
            guard !s.isEmpty, s != "?", !s.unicodeScalars.contains(where: unsafe),
                AccessFile.splitWords(AccessFile.stripComment("x " + s + " # x")) == ["x", s]
            else { return nil }
            return s
        }

        /// A value of a `roles` list, which is also cut at commas.
        static func listWord(_ s: String) -> String? {
            word(s).flatMap { AccessFile.Parser.listItems($0) == [$0] ? $0 : nil }
        }

        /// Names for a comment: quoted as reports quote them, line breaks escaped.
        static func display(_ s: String) -> String { oneLine(SQL.display(s)) }
    }
}

extension AccessDraft {
    /// The block (`public.notes`, `bucket avatars`) that line `line` of a drafted file belongs to:
    /// the nearest `table`, `members` or `bucket` line at or above it.
    static func blockName(at line: Int, in text: String) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard line >= 1, line <= lines.count else { return nil }
        for l in lines[..<line].reversed() {
            if l.hasPrefix("table ") || l.hasPrefix("members ") {
                return String(l.split(separator: " ", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces)
            }
            if l.hasPrefix("bucket ") { return l.trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }
}
