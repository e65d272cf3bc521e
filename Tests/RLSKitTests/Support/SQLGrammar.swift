import Foundation

/// SQL inputs for the differential scanner test: random token soup, mutated real snippets,
/// and valid multi-statement scripts full of the constructs scanners get wrong.
enum SQLGrammar {
    /// Pieces the lexer must tell apart: quote openers, prefixes, comment marks, operators,
    /// numbers, non-ASCII letters and spaces.
    static let pieces: [String] = [
        "select", "commit", "begin", "end", "case", "atomic", "create", "function", "procedure", "or", "replace",
        "as", "E", "e", "U", "u", "B", "b", "X", "x", "N", "n", "€", "é", "ñ", "日本", "a", "_x", "a$", "\u{00A0}",
        "'", "\"", "E'", "e'", "U&'", "u&\"", "U&", "B'", "X'", "N'", "$", "$$", "$a$", "$€$", "$_1$", "$1", "$1a",
        "\\", "''", "\\'", "\"\"", "--", "/*", "*/", "-- c\n", "/* /* */ */", "\n", " ", "\t", "\r", "\u{0C}", "\r\n",
        ";", "(", ")", "[", "]", ",", "::", ":=", ":", "..", ".", "+", "-", "*", "/", "=", "<>", "!=", "=>", "<=",
        "!", "@", "~", "%", "^", "&", "|", "#", "?", "`", "+-", "*-", "=-", "@-", "~-", "-+", "||/", "<->",
        "1", "12", "1.5", ".5", "1.", "1e5", "1e-5", "1e+", "1_000", "0x1F", "0b101", "0o7", "1..2", "1abc",
        "\u{2003}", "ß", "Ω", "$ä$", "U&\"a\"", "e'\\\\'", "'\\'", "uescape", ":x", ":'x'", "--\r", "/**/", "/*/",
        "*/*",
    ]

    /// Real statements and the known tricks, to be mutated.
    static let snippets: [String] = [
        "select 1 as €$a$; commit; begin; select 2;",
        "select 1 as €E'\\'; commit; begin; select '\\';",
        "commit--sneaky\n",
        "select E'it\\'s; here' as x, 'a''b;' , U&'d\\0061t;a' uescape '\\';",
        "/* block; /* nested; */ still */ create function f() returns int as $fn$ select 1; $fn$ language sql;",
        "do $$ begin raise notice 'x;y'; end $$;",
        "create function f() returns int language sql begin atomic select 1; select case when true then 2 end; end;",
        "create or replace procedure p() language sql begin atomic insert into t values (1); end; select 3;",
        "select 'a'\n'b;' as continued, 'c' -- not continued\n;",
        "select x.€a$b from t where y <> 1 and z !=-1 -- c\n; select 1 *-- c\n2;",
        "insert into public.posts (author_id, caption) values ('{alice}', $q$ it's; $q$);",
        "create policy \"own;rows\" on public.profiles for update using ((select auth.uid()) = id);",
        "select B'0101', X'1F', N'nat;ional', $1, $a$ $b$ ; $a$;",
        "select 1 as \"we;ird\"\"t\", u&\"d\\0061t;a\" from x;",
    ]

    /// Statements that parse, with literals and names in every quoting style.
    static let literals: [String] = [
        "'a;b'", "E'\\';'", "e'\\\\'", "U&'d\\0061t;a'", "B'0101'", "X'1F'", "N'n;x'", "$$;$$", "$q$ $$ ; $q$",
        "$€$;$€$", "'a'\n';b'", "'x' -- c\n ';y'", "1.5e3", "0x1F", "1_000", ".5", "$x$'$x$", "''''", "E''''",
    ]
    static let names = ["€$a$", "\"x;y\"", "U&\"d;\"", "é", "日本", "a$b", "\"\"\"q\"", "_1", "x"]
    static let templates = [
        "select {l} as {n}", "select {l}::text --c\n", "select ({l}) /* ; /* ; */ */", "commit--x", "begin",
        "select 1 as {n} from (select {l} as {n}) as s", "end", "rollback", "values ({l}, {l})",
        "create function f() returns int language sql begin atomic select {l}; select case when true then 1 end; end",
        "create or replace procedure p() language sql begin atomic select 1; end",
        "create function begin() returns int language sql as $$ select 1 $$", "do $$ begin perform {l}; end $$",
        "select 1 *-- c\n2", "select 2 @-1", "select {n}.{n} from {n}", "savepoint {n}",
    ]

    static func pick<T>(_ a: [T], _ rng: inout SplitMix) -> T { a[Int(rng.next() % UInt64(a.count))] }
    static func int(_ n: Int, _ rng: inout SplitMix) -> Int { Int(rng.next() % UInt64(n)) }

    static func random(_ rng: inout SplitMix) -> String {
        (0..<(1 + int(24, &rng))).map { _ in pick(pieces, &rng) + (int(3, &rng) == 0 ? " " : "") }.joined()
    }

    static func mutated(_ rng: inout SplitMix) -> String {
        var s = Array(pick(snippets, &rng).unicodeScalars)
        for _ in 0..<(1 + int(3, &rng)) {
            let at = s.isEmpty ? 0 : int(s.count + 1, &rng)
            switch int(3, &rng) {
            case 0: s.insert(contentsOf: pick(pieces, &rng).unicodeScalars, at: at)
            case 1 where !s.isEmpty: s.removeSubrange(at..<min(s.count, at + 1 + int(4, &rng)))
            default: s.insert(contentsOf: pick(snippets, &rng).unicodeScalars.prefix(int(30, &rng)), at: at)
            }
        }
        return String(String.UnicodeScalarView(s))
    }

    static func validScript(_ rng: inout SplitMix) -> String {
        let gaps = [";", "; ", ";\n", " ;\n-- c\n", ";/* c */", ";;", "\n;\r\n"]
        return (0..<(1 + int(4, &rng))).map { _ in
            var t = pick(templates, &rng)
            while let r = t.range(of: "{l}") { t.replaceSubrange(r, with: pick(literals, &rng)) }
            while let r = t.range(of: "{n}") { t.replaceSubrange(r, with: pick(names, &rng)) }
            return t + pick(gaps, &rng)
        }.joined()
    }
}
