@_spi(CLI) import RLSKit
import Synchronization

/// How a write to standard output or standard error is made safe.
enum OutputKind {
    /// For people: `TextEscape.text`, colour codes only where rlskit paints.
    case text
    /// rlskit's GitHub annotations (escaped as they are built): their `::` lines stay commands.
    case annotations
    /// A format that escapes for itself (JSON, SARIF, JUnit, TAP, the lock file) or rlskit's own
    /// SQL and docs: written as is, so the bytes stay the document.
    case document
}

/// What every write to standard output and standard error passes through: secrets masked,
/// and for text control characters escaped and no line a CI workflow command.
enum Output {
    /// Colour codes pass only where rlskit paints (a terminal, NO_COLOR unset).
    static let color = Terminal.detect().color
    private static let masks = Mutex<[SecretMask]>([])

    /// From now on `secret` (and what derives from it) never appears in the output.
    static func hide(_ secret: String) {
        guard !secret.isEmpty else { return }
        masks.withLock { $0.append(SecretMask(secret)) }
    }

    static func safe(_ text: String, as kind: OutputKind) -> String {
        let masked = masks.withLock { $0 }.reduce(text) { $1.apply($0) }
        switch kind {
        case .text: return TextEscape.text(masked, color: color)
        case .annotations: return TextEscape.text(masked, color: color, workflowCommands: true)
        case .document: return masked
        }
    }
}
