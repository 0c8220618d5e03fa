import ArgumentParser
import Foundation
import OtonHost

struct CtlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: tr(
            "Control a running oton: status, play, pause, toggle, stop, volume N, plugins, commands, subscribe, and every plugin command (sleep 30m, share, …)."
        ),
        discussion: HelpText.paragraphs(
            tr("Options go before the command. `oton ctl commands` lists what the running oton understands."),
            tr("Volume is in percent (50, 50%, +5, -5); durations say their unit (90s, 30m, 1h30m)."),
            HelpText.examples("oton ctl status", "oton ctl volume +5", "oton ctl sleep 30m", "oton ctl snooze 10m", "oton ctl --instance kitchen subscribe")
        )
    )

    @Option(name: .long, help: ArgumentHelp(tr("Which oton to talk to, when several run")))
    var instance: String?

    @Flag(name: .long, help: ArgumentHelp(tr("Print the reply as JSON")))
    var json = false

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp(tr("The command and its arguments")))
    var words: [String] = ["status"]

    func run() throws {
        let words = self.words.isEmpty ? ["status"] : self.words
        // The words pass through unparsed (plugin commands take their own options), so help and
        // stray options are recognized here, before any connection: help first, always.
        if let first = words.first, ["--help", "-h", "help"].contains(first) {
            print(Self.helpMessage())
            return
        }
        if let first = words.first, first.hasPrefix("-"), Double(first) == nil {
            Terminal.error("unknown option \(first) for oton ctl; options go before the command (see oton ctl --help)")
            throw ExitStatus.configuration
        }
        let client: ControlClient
        do {
            client = try ControlClient(instance: instance)
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.configuration
        }
        do {
            try client.write(words)
            guard let line = client.nextLine(),
                let reply = (try? JSONValue.parse(Data(line.utf8), maxBytes: ControlClient.maximumLineBytes))?.objectValue
            else {
                Terminal.error("oton closed the connection without a reply")
                throw ExitCode.failure
            }
            if json { print(line) }
            guard reply["ok"]?.boolValue == true else {
                if !json { Terminal.error(reply["error"]?.stringValue ?? "failed") }
                throw ExitCode.failure
            }
            if words.first == "subscribe" {
                // The stream as oton sends it, its greeting too: JSON lines throughout, so that a
                // saved one is a script for `oton plugins run` as it is.
                if !json { print(line) }
                fflush(nil)
                while let event = client.nextLine() {
                    print(event)
                    fflush(nil)
                }
            } else if !json, let text = reply["text"]?.stringValue {
                print(text)
            }
        } catch let error as ControlClient.Failure {
            Terminal.error(error.description)
            throw ExitCode.failure
        }
    }
}
