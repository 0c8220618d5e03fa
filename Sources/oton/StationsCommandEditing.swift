import ArgumentParser
import Foundation
import OtonHost

/// One edit of plugins.json's stations: choose the file, load it (refusing a malformed one
/// untouched), apply the change, replace the file atomically, then tell running otons.
/// `--config FILE` of the commands that edit plugins.json's stations: one declaration, one help text.
struct EditedConfigOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(tr("plugins.json to edit (default: $OTON_CONFIG, else $XDG_CONFIG_HOME/oton/plugins.json)")))
    var config: String?
}

enum StationsFileEdit {
    /// `change` edits the stations and returns the sentence to print.
    static func perform(config: String?, _ change: (inout StationsFile) throws(StationsEditError) -> String) throws {
        do {
            let location = try EditableConfigLocation.choose(explicit: config)
            if location.created {
                Terminal.note("created \(location.path) from the built-in default")
                if let previous = location.replacesInUse {
                    Terminal.note("note: it now takes precedence over \(previous), which oton used until now")
                }
            }
            let summary = try ConfigFolderLock.holding(location.path) { () throws(StationsEditError) -> String in
                var file = try StationsFile.load(location.path)
                let summary = try change(&file)
                try file.save()
                return summary
            }
            print(summary)
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.configuration
        }
        RunningOtonNotifier.reloadStations()
    }
}

/// Tells every running oton of this user to re-read its stations (`reload-stations`). Best
/// effort: an oton that does not answer within 2 s is named and skipped.
enum RunningOtonNotifier {
    static func reloadStations() {
        // A socket nobody listens on (left by a crashed oton) refuses the connection: skipped.
        let live = ControlSocketPath.instances().compactMap { instance in
            (try? ControlClient(instance: instance)).map { (instance, $0) }
        }
        guard !live.isEmpty else {
            Terminal.note("no running oton to tell; the change applies when oton starts")
            return
        }
        for (instance, client) in live {
            do {
                client.setTimeout(seconds: 2)
                let reply = try client.send(["reload-stations"])
                if reply["ok"]?.boolValue == true {
                    Terminal.note("running oton \"\(instance)\": \(reply["text"]?.stringValue ?? "stations reloaded")")
                } else {
                    Terminal.note("running oton \"\(instance)\" did not reload: \(reply["error"]?.stringValue ?? "no reason given")")
                }
            } catch {
                Terminal.note("running oton \"\(instance)\" not reached (\(error)); it keeps its old stations until restarted")
            }
        }
    }
}

extension StationsCommand {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: tr("Add a station to plugins.json: NAME URL, or --from-search N (from the last `oton stations search`).")
        )

        @Argument(help: ArgumentHelp(tr("The station's name (with --from-search: a name instead of the directory's)")))
        var name: String?

        @Argument(help: ArgumentHelp(tr("Its stream or playlist URL (http, https or file)")))
        var url: String?

        @Option(name: .long, help: ArgumentHelp(tr("Result N of the last `oton stations search` (1 is the first)")))
        var fromSearch: Int?

        @Option(name: .long, help: ArgumentHelp(tr("A status API (radio.co or Icecast status-json.xsl) for titles")))
        var statusURL: String?

        @Option(name: .long, help: ArgumentHelp(tr("The station's web page")))
        var homepage: String?

        @OptionGroup var edited: EditedConfigOption

        func validate() throws {
            if fromSearch == nil, name == nil || url == nil {
                throw ValidationError(tr("give NAME and URL, or --from-search N"))
            }
            if fromSearch != nil, url != nil { throw ValidationError(tr("--from-search takes the URL from the search; give no URL")) }
            do {
                if let name { _ = try StationInput.checkedName(name) }
                if let url { _ = try StationInput.checkedURL(url) }
            } catch {
                throw ValidationError("\(error)")
            }
        }

        func run() throws {
            var station = try chosenStation()
            if let statusURL { station.statusURL = statusURL }
            if let homepage { station.homepage = homepage }
            try StationsFileEdit.perform(config: edited.config) { file throws(StationsEditError) in
                try file.add(station)
                return "added \"\(station.name)\" (\(station.url)) as station \(file.entries.count) in \(file.path)"
            }
        }

        private func chosenStation() throws -> Station {
            guard let position = fromSearch else { return Station(name: try StationInput.checkedName(name!), url: try StationInput.checkedURL(url!)) }
            guard let saved = LastSearchStore.load(), !saved.stations.isEmpty else {
                Terminal.error("no saved search to add from\n  hint: run `oton stations search QUERY` first")
                throw ExitStatus.configuration
            }
            guard (1...saved.stations.count).contains(position) else {
                Terminal.error("--from-search \(position): the last search (\"\(saved.query)\") has results 1 to \(saved.stations.count)")
                throw ExitStatus.configuration
            }
            var station = saved.stations[position - 1].station
            if let name { station.name = try StationInput.checkedName(name) }
            return station
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Remove a station from plugins.json (by name, any case)."))

        @Argument(help: ArgumentHelp(tr("The station's name")))
        var name: String

        @OptionGroup var edited: EditedConfigOption

        func run() throws {
            try StationsFileEdit.perform(config: edited.config) { file throws(StationsEditError) in
                let removed = file.entries[try file.index(of: name)].name
                try file.remove(name)
                return "removed \"\(removed)\" from \(file.path)"
            }
        }
    }

    struct Default: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: tr("Make a station of plugins.json the default (what `oton play` plays without a station); without NAME, print it.")
        )

        @Argument(help: ArgumentHelp(tr("The station's name (any case)")))
        var name: String?

        @OptionGroup var edited: EditedConfigOption

        func run() throws {
            guard let name else {
                let loaded: OtonConfig
                do {
                    loaded = try ConfigLoader.load(explicit: edited.config)
                } catch {
                    Terminal.error(error.description)
                    throw ExitStatus.configuration
                }
                guard let station = loaded.defaultStation else {
                    Terminal.error("no stations in \(loaded.origin), so no default")
                    throw ExitStatus.configuration
                }
                print(station.name)
                return
            }
            try StationsFileEdit.perform(config: edited.config) { file throws(StationsEditError) in
                try file.setDefault(name)
                return "\"\(file.defaultStationName ?? name)\" is now the default_station in \(file.path)"
            }
        }
    }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Rename a station of plugins.json (the default_station follows it)."))

        @Argument(help: ArgumentHelp(tr("The station's name (any case)")))
        var name: String

        @Argument(help: ArgumentHelp(tr("Its new name")))
        var newName: String

        @OptionGroup var edited: EditedConfigOption

        func validate() throws {
            do {
                _ = try StationInput.checkedName(newName)
            } catch {
                throw ValidationError("\(error)")
            }
        }

        func run() throws {
            let checked = (try? StationInput.checkedName(newName)) ?? newName  // validate() refused a bad one
            try StationsFileEdit.perform(config: edited.config) { file throws(StationsEditError) in
                let old = file.entries[try file.index(of: name)].name
                try file.rename(name, to: checked)
                return "renamed \"\(old)\" to \"\(checked)\" in \(file.path)"
            }
        }
    }

    struct SetURL: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-url", abstract: tr("Give a station of plugins.json a new stream URL (its name and other keys stay)."))

        @Argument(help: ArgumentHelp(tr("The station's name (any case)")))
        var name: String

        @Argument(help: ArgumentHelp(tr("Its stream or playlist URL (http, https or file)")))
        var url: String

        @OptionGroup var edited: EditedConfigOption

        func validate() throws {
            do {
                _ = try StationInput.checkedURL(url)
            } catch {
                throw ValidationError("\(error)")
            }
        }

        func run() throws {
            let checked = (try? StationInput.checkedURL(url)) ?? url  // validate() refused a bad one
            try StationsFileEdit.perform(config: edited.config) { file throws(StationsEditError) in
                let station = file.entries[try file.index(of: name)].name
                try file.setURL(name, to: checked)
                return "\"\(station)\" now plays \(checked) (in \(file.path))"
            }
        }
    }

    struct Move: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Move a station to position POS in plugins.json (1 is the top)."))

        @Argument(help: ArgumentHelp(tr("The station's name")))
        var name: String

        @Argument(help: ArgumentHelp(tr("Its new position, from 1")))
        var position: Int

        @OptionGroup var edited: EditedConfigOption

        func run() throws {
            try StationsFileEdit.perform(config: edited.config) { file throws(StationsEditError) in
                try file.move(name, to: position)
                return "moved \"\(file.entries[position - 1].name)\" to position \(position) in \(file.path)"
            }
        }
    }
}
