import OtonEvents
import OtonJSON
import OtonPlayback
import OtonSupport

/// `oton ctl effect`: the effect chain shown, and one effect changed live.
extension ControlCommands {
    /// `effect [NAME [bypass on|off | preset PRESET | PARAMETER VALUE]]` (docs/effects.md): the chain
    /// shown, or one effect changed live. A wrong name, parameter or value is refused and changes nothing.
    func effect(_ arguments: [String]) -> ControlReply {
        let snapshot = player.snapshot
        guard let name = arguments.first else { return effectList(snapshot) }
        guard var settings = snapshot.effects.first(where: { $0.name == name }) else {
            if snapshot.filters.contains(name) {
                guard arguments.count == 1 else {
                    return .failure(tr("{name} is a plugin's filter: it cannot be changed here; disable its plugin in plugins.json to stop it", ["name": name]))
                }
                return effectList(snapshot, only: name)
            }
            return .failure(EffectProblem.unknownEffect(name, known: snapshot.effects.map(\.name)).description)
        }
        guard arguments.count > 1 else { return effectList(snapshot, only: name) }
        guard arguments.count == 3 else { return .failure(tr("usage: effect NAME bypass on|off | preset PRESET | PARAMETER VALUE")) }
        let (word, value) = (arguments[1], arguments[2])
        switch word.lowercased() {
        case "bypass":
            guard let on = ["on": true, "off": false, "true": true, "false": false][value.lowercased()] else {
                return .failure(tr("usage: effect NAME bypass on|off"))
            }
            settings.bypass = on
        case "preset":
            guard settings.kind == .equalizer else { return .failure(tr("effect {name} has no presets (only the equalizer has)", ["name": name])) }
            guard let preset = EffectSettings.equalizer(name: name, preset: value, bypass: settings.bypass) else {
                return .failure(
                    tr("\"{preset}\" is not a preset; use one of {presets}", ["preset": value, "presets": Equalizer.presetNames.joined(separator: ", ")]))
            }
            settings = preset
        default:
            guard let number = Double(value) else {
                return .failure(tr("{parameter} {value}: the value must be a number", ["parameter": word, "value": value]))
            }
            switch EffectCatalogue.parameters(of: settings.kind) {
            case let .failure(problem): return .failure(problem.description)
            case let .success(parameters):
                if let problem = EffectCatalogue.check(word, number, among: parameters, effect: name) { return .failure(problem.description) }
            }
            settings.parameters[word] = number
            if settings.kind == .equalizer { settings.preset = nil }
        }
        player.submit(.setEffect(settings), from: "control")
        player.settle()
        return effectList(player.snapshot, only: name)
    }

    /// The chain (or one effect) as `ctl effect` shows it: "amp (lv2 …) on · gain -6".
    private func effectList(_ snapshot: Player.Snapshot, only: String? = nil) -> ControlReply {
        var lines: [String] = []
        var list: [JSONValue] = []
        for settings in snapshot.effects where only == nil || settings.name == only {
            let reading = snapshot.effectReadings.first { $0.name == settings.name }
            let kind =
                switch settings.kind {
                case .equalizer: "equalizer" + (settings.preset.map { " \($0)" } ?? "")
                case let .lv2(uri): "lv2 \(uri)"
                }
            let values = settings.parameters.keys.sorted { a, b in
                let order = Equalizer.bandNames
                return (order.firstIndex(of: a) ?? .max, a) < (order.firstIndex(of: b) ?? .max, b)
            }
            let shownValues = values.map { "\($0) \(EffectProblem.number(settings.parameters[$0]!))" }.joined(separator: ", ")
            let state = settings.bypass ? tr("bypassed") : (reading?.unusable == true ? tr("not running (the stream's format does not fit it)") : tr("on"))
            lines.append("\(settings.name)  \(kind)  \(state)" + (shownValues.isEmpty ? "" : "  · " + shownValues))
            var entry: [String: JSONValue] = [
                "name": .string(settings.name), "bypass": .bool(settings.bypass),
                "parameters": .object(settings.parameters.mapValues(JSONValue.number)),
            ]
            switch settings.kind {
            case .equalizer: entry["equalizer"] = settings.preset.map(JSONValue.string) ?? .null
            case let .lv2(uri): entry["lv2"] = .string(uri)
            }
            if let reading { entry["running"] = .bool(!reading.unusable) }
            list.append(.object(entry))
        }
        for name in snapshot.filters where only == nil || name == only {
            let shown = filterEntry(name, snapshot.effectReadings.first { $0.isFilter && $0.name == name })
            lines.append(shown.line)
            list.append(shown.entry)
        }
        if lines.isEmpty { return .success(tr("no effects (plugins.json's \"effects\" lists none; docs/effects.md)"), data: ["effects": .array([])]) }
        return .success(lines.joined(separator: "\n"), data: ["effects": .array(list)])
    }

    /// A plugin's filter as `ctl effect` shows it, after the effects: whether it runs, its time budget
    /// and its average time per buffer ("org.example.half-gain  plugin filter  on  · budget 11.610 ms per buffer, …").
    private func filterEntry(_ name: String, _ reading: EffectReading?) -> (line: String, entry: JSONValue) {
        let state =
            if let reading {
                reading.overran
                    ? tr("bypassed: it overran its time budget")
                    : reading.unusable ? tr("not running (the stream's format does not fit it)") : reading.bypassed ? tr("bypassed") : tr("on")
            } else {
                tr("idle (nothing plays)")
            }
        let budget = reading.map { $0.budgetNanoseconds > 0 ? Double($0.budgetNanoseconds) / 1e6 : nil } ?? nil
        var details = [
            budget.map { tr("budget {ms} ms per buffer", ["ms": String(format: "%.3f", $0)]) }
                ?? tr("budget half of each buffer's duration, at least 2 ms")
        ]
        var entry: [String: JSONValue] = [
            "name": .string(name), "filter": true, "bypass": .bool(reading.map { $0.bypassed || $0.overran } ?? false),
            "overran": .bool(reading?.overran ?? false),
            "running": .bool(reading.map { !$0.bypassed && !$0.overran && !$0.unusable } ?? false),
            "buffers": .int(Int(clamping: reading?.buffers ?? 0)),
        ]
        if let budget { entry["budget_ms"] = .number(budget) }
        if let reading, reading.buffers > 0 {
            let average = Double(reading.busyNanoseconds) / Double(reading.buffers) / 1e6
            details.append(
                tr("{ms} ms per buffer on average over {buffers} buffers", ["ms": String(format: "%.3f", average), "buffers": String(reading.buffers)]))
            entry["average_ms"] = .number(average)
        }
        return ("\(name)  " + tr("plugin filter") + "  \(state)  · " + details.joined(separator: ", "), .object(entry))
    }

    /// The safety guard, when it acted on this connection: how many samples it silenced or clamped,
    /// and which effects or filters made them (the leveller's entry guard counts what came from elsewhere).
    func guardStatus() -> (text: String, data: [String: JSONValue])? {
        let snapshot = player.snapshot
        let culprits = snapshot.effectReadings.filter { $0.guardedSamples > 0 }
        let fromEffects = culprits.reduce(UInt64(0)) { $0 + $1.guardedSamples }
        let atLeveller = snapshot.levelling?.guardedSamples ?? 0
        guard fromEffects + atLeveller > 0 else { return nil }
        let names = culprits.map(\.name)
        let data: [String: JSONValue] = [
            "samples": .int(Int(clamping: fromEffects + atLeveller)), "by": .array(names.map(JSONValue.string)),
        ]
        let count = String(fromEffects + atLeveller)
        let text =
            names.isEmpty
            ? tr("guard: {count} broken samples kept from the speakers", ["count": count])
            : tr("guard: {count} broken samples from {names} kept from the speakers", ["count": count, "names": names.joined(separator: ", ")])
        return (text, data)
    }
}
