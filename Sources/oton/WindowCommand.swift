import ArgumentParser
import Foundation
import OtonHost

/// `oton window`: runs `oton-window` (beside this executable), the GTK 4 / libadwaita window. It is
/// a program of its own so that every other command loads no GTK, and the window loads no GStreamer.
struct WindowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "window",
        abstract: tr("Open the desktop window (GTK 4): now playing, controls, favourites"),
        discussion: HelpText.paragraphs(
            tr(
                "Shows the running oton (--instance, else \"default\", else the only one) or starts one, which stops when the window closes. A second `oton window` raises the first."
            ) + "\n"
                + tr("Exit codes: 0 closed, 2 usage error, 5 no display."),
            HelpText.examples("oton window", "oton window --instance kitchen")
        )
    )

    @Option(name: .long, help: ArgumentHelp(tr("The running oton to show (default: \"default\", else the only one); started when none runs")))
    var instance: String?

    @Option(name: .long, help: ArgumentHelp(tr("plugins.json for the player the window starts")))
    var config: String?

    @Option(name: .long, help: ArgumentHelp(tr("The window's first size in pixels, WIDTHxHEIGHT (default 720x820)"), valueName: "size"))
    var size: String?

    func run() throws {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let program = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("oton-window").path
        var arguments = [program]
        if let instance { arguments += ["--instance", instance] }
        if let config { arguments += ["--config", config] }
        if let size { arguments += ["--size", size] }
        let pointers = arguments.map { strdup($0) } + [nil]
        execv(program, pointers)
        FileHandle.standardError.write(
            Data(
                ("oton: "
                    + tr(
                        "cannot run {program}: {reason}; install it beside oton (scripts/install)",
                        ["program": program, "reason": String(cString: strerror(errno))]) + "\n").utf8))
        throw ExitCode.failure
    }
}
