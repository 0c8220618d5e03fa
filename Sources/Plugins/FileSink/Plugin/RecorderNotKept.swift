import FileSinkLogic
import Foundation

/// Audio written and then deleted, so that the files hold less than "{duration} of audio recorded" says
/// (the default --min-seconds 5 kept 8 of 15 s of a lab MP3, and only the per-file lines said why: issue 39 §3).
struct RecorderNotKept {
    struct Tally {
        var count = 0
        var seconds = 0.0
        mutating func add(_ piece: Double) { count += 1; seconds += piece }
    }
    var short = Tally()
    var partial = Tally()

    /// A piece deleted: shorter than --min-seconds, or incomplete under --partial drop.
    mutating func add(_ seconds: Double, tooShort: Bool) {
        if tooShort { short.add(seconds) } else { partial.add(seconds) }
    }

    /// "; not kept: 0:07 in 2 piece(s) shorter than --min-seconds (5.0 s)", or nothing when every piece was kept.
    func summary(minimumSeconds: Double, tr: (String, [String: String]) -> String) -> String {
        var parts: [String] = []
        if short.count > 0 {
            parts.append(
                tr(
                    "{seconds} in {count} piece(s) shorter than --min-seconds ({minimum})",
                    [
                        "seconds": formatSeconds(short.seconds), "count": String(short.count),
                        "minimum": formatSecondsPrecisely(minimumSeconds),
                    ]))
        }
        if partial.count > 0 {
            parts.append(
                tr(
                    "{seconds} in {count} incomplete piece(s) (--partial drop)",
                    ["seconds": formatSeconds(partial.seconds), "count": String(partial.count)]))
        }
        guard !parts.isEmpty else { return "" }
        return tr("; not kept: {pieces}", ["pieces": parts.joined(separator: tr(" and ", [:]))])
    }
}
