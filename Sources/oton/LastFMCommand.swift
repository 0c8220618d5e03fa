import ArgumentParser
import Foundation
import OtonHost

/// `oton lastfm login`: Last.fm's desktop auth flow, run by the History plugin
/// (its `lastfm-login` command) without a player. Prints the URL to open, then
/// waits until the token is authorized and stores the session key (mode 0600).
struct LastFMCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lastfm",
        abstract: tr("Last.fm scrobbling (History plugin)."),
        subcommands: [Login.self]
    )

    struct Login: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Authorize Oton to scrobble to your Last.fm account."))
        @OptionGroup var options: GlobalOptions

        @Option(name: .long, help: ArgumentHelp(tr("Seconds to wait for the authorization in the browser")))
        var wait: Double = 300

        @Option(name: .long, help: ArgumentHelp(tr("Seconds between checks")))
        var interval: Double = 3

        func run() throws {
            options.bootstrapLogging()
            let config = (try? ConfigLoader.load(explicit: options.config)) ?? OtonConfig()
            if options.config != nil { _ = try options.loadConfig() }
            do {
                try OfflineCommand.with(pluginID: "org.oton.history", defaultLibrary: "libOtonHistory.so", config: config) { plugin in
                    let started = plugin.run("lastfm-login", ["start"])
                    guard started.ok,
                        let object = try? JSONValue.parse(Data(started.text.utf8)),
                        let token = object["token"]?.stringValue, let url = object["url"]?.stringValue
                    else {
                        Terminal.error(started.text)
                        throw ExitStatus.configuration
                    }
                    StandardOutput.write(
                        "Open this URL in a browser and allow Oton to use your Last.fm account:\n\n  \(url)\n\nWaiting for the authorization…\n")
                    let deadline = Date().addingTimeInterval(wait)
                    while true {
                        let finished = plugin.run("lastfm-login", ["finish", token])
                        if finished.ok {
                            StandardOutput.write(finished.text + "\n")
                            return
                        }
                        guard finished.text.hasPrefix("pending:"), Date() < deadline else {
                            Terminal.error(
                                finished.text.hasPrefix("pending:")
                                    ? "the token was not authorized within \(Int(wait)) s; run oton lastfm login again" : finished.text)
                            throw ExitStatus.configuration
                        }
                        Thread.sleep(forTimeInterval: max(0.1, interval))
                    }
                }
            } catch let error as OfflineCommand.Failure {
                Terminal.error(error.description)
                throw ExitStatus.configuration
            }
        }
    }
}
