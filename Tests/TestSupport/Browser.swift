import Foundation

/// Headless Chromium for tests of the HTML report: the rendered DOM and screenshots.
public enum Browser {
    /// The browser; an error with the command that installs it when it is missing.
    public static func require() throws -> String {
        try Tools.require("chromium", "chromium-browser", "google-chrome", for: "the HTML report tests")
    }

    /// Runs the browser headless on `url` with `flags`; returns standard output and the seconds it took.
    public static func run(_ flags: [String], url: String) throws -> (output: String, seconds: Double) {
        let executable = try require()
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
}
