import ArgumentParser
import Foundation
import OtonHost

/// `oton wish …`: the wishlist that `oton record --wishlist` keeps tracks from.
struct WishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wish",
        abstract: tr("Keep a wishlist of tracks for `oton record --wishlist`: add, list, remove."),
        discussion: HelpText.paragraphs(
            tr(
                "A wish is a pattern compared with each track's \"Artist - Title\" (or with the artist or the title alone: --artist, --title). Case, accents and width are ignored in every script, as in `oton history --search` (кино finds Кино, beyonce finds Beyoncé); * stands for any run of characters and ? for one. The pattern matches the whole text: \"Кино - *\" is every track by Кино, \"*rhapsody*\" any title with the word."
            ),
            tr(
                "The list is wishlist.json beside plugins.json (the folder of --config FILE or $OTON_CONFIG, else $XDG_CONFIG_HOME/oton), replaced atomically on each change."
            ),
            HelpText.examples(
                "oton wish add \"Кино - *\"", "oton wish add --artist \"Beyoncé\"", "oton wish add --title \"Bohemian Rhapsody\"",
                "oton wish list", "oton wish remove 2", "oton record --all --wishlist --out ~/Music/wishes")
        ),
        subcommands: [List.self, Add.self, Remove.self],
        defaultSubcommand: List.self
    )

    /// The wishlist's path for these options, or a configuration error.
    static func path(config: String?) throws -> String {
        do {
            return try WishlistFile.path(explicitConfig: config)
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.configuration
        }
    }

    /// One edit: load (refusing a damaged file, untouched), change, write atomically; prints the summary.
    static func edit(config: String?, _ change: (inout WishlistFile) throws(WishlistFile.Failure) -> String) throws {
        do {
            print(try WishlistFile.edit(try path(config: config), change))
        } catch let failure as WishlistFile.Failure {
            Terminal.error(failure.description)
            throw ExitStatus.configuration
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("List the wishes, numbered for `oton wish remove N`."))

        @OptionGroup var options: EditedConfigOption

        func run() throws {
            let path = try WishCommand.path(config: options.config)
            let file: WishlistFile
            do {
                file = try WishlistFile.load(path)
            } catch {
                Terminal.error(error.description)
                throw ExitStatus.configuration
            }
            for (index, wish) in file.wishes.enumerated() { print("\(index + 1). \(StationsTable.clean(wish.shown))") }
            if file.wishes.isEmpty {
                Terminal.note(tr("the wishlist is empty; add a wish with `oton wish add \"Artist - Title\"` (* and ? are wildcards)"))
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Add a wish: \"Artist - Title\" (with * and ?), --artist NAME or --title TITLE."))

        @Argument(help: ArgumentHelp(tr("\"Artist - Title\", with * for any run of characters and ? for one"), valueName: "pattern"))
        var pattern: String?

        @Option(name: .long, help: ArgumentHelp(tr("Every track by this artist (wildcards allowed)"), valueName: "name"))
        var artist: String?

        @Option(name: .long, help: ArgumentHelp(tr("Every track with this title, by anyone (wildcards allowed)"), valueName: "title"))
        var title: String?

        @OptionGroup var options: EditedConfigOption

        func validate() throws {
            let given = [pattern, artist, title].compactMap { $0 }.count
            if given == 0 { throw ValidationError(tr("give a pattern such as \"Кино - *\", or --artist NAME, or --title TITLE")) }
            if given > 1 { throw ValidationError(tr("give one wish at a time: a pattern, --artist or --title")) }
        }

        func run() throws {
            let wish: Wish
            do {
                if let artist {
                    wish = try Wish(pattern: artist, field: .artist)
                } else if let title {
                    wish = try Wish(pattern: title, field: .title)
                } else {
                    wish = try Wish(pattern: pattern ?? "", field: .track)
                }
            } catch {
                Terminal.error(error.description)
                throw ExitStatus.configuration
            }
            try WishCommand.edit(config: options.config) { (file: inout WishlistFile) throws(WishlistFile.Failure) -> String in
                if let index = file.wishes.firstIndex(of: wish) {
                    throw WishlistFile.Failure(
                        description: tr(
                            "\"{wish}\" is already wish {number}; nothing changed",
                            ["wish": wish.shown, "number": String(index + 1)]))
                }
                file.wishes.append(wish)
                return tr("added wish {number}: {wish}", ["number": String(file.wishes.count), "wish": wish.shown])
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Remove wish N (as `oton wish list` numbers them)."))

        @Argument(help: ArgumentHelp(tr("The wish's number in `oton wish list`"), valueName: "n"))
        var number: Int

        @OptionGroup var options: EditedConfigOption

        func run() throws {
            try WishCommand.edit(config: options.config) { (file: inout WishlistFile) throws(WishlistFile.Failure) -> String in
                guard (1...max(file.wishes.count, 1)).contains(number), !file.wishes.isEmpty else {
                    throw WishlistFile.Failure(
                        description: file.wishes.isEmpty
                            ? tr("the wishlist is empty; there is no wish {number} to remove", ["number": String(number)])
                            : tr(
                                "there is no wish {number}; use 1 to {count} (see `oton wish list`)",
                                ["number": String(number), "count": String(file.wishes.count)]))
                }
                let removed = file.wishes.remove(at: number - 1)
                return tr("removed wish {number}: {wish}", ["number": String(number), "wish": removed.shown])
            }
        }
    }
}
