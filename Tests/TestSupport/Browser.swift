import Foundation

/// Headless Chromium for tests of the HTML report: the rendered DOM and screenshots.
public enum Browser {
    /// The browser, nil when it is not installed (`scripts/test` installs it).
    public static var executable: String? {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
                let path = "\(dir)/\(name)"
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
        }
        return nil
    }

    /// Runs the browser headless on `url` with `flags`; returns standard output and the seconds it took.
    public static func run(_ flags: [String], url: String) throws -> (output: String, seconds: Double) {
        guard let executable else { throw BrowserMissing() }
        let profile = NSTemporaryDirectory() + "rlskit-chromium-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                "--user-data-dir=\(profile)",
            ] + flags + [url]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        let start = Date()
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), Date().timeIntervalSince(start))
    }

    public struct BrowserMissing: Error, CustomStringConvertible {
        public var description: String { "chromium is not installed (scripts/test installs it)" }
    }
}
