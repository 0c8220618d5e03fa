import Foundation

/// Alarms in a unit folder: `oton-alarm-N.timer` and `.service`.
extension ScheduleUnitFolder {
    /// An alarm as its timer says, and whether that timer asks to wake the machine.
    public struct ListedAlarm: Equatable, Sendable {
        public let alarm: Alarm
        public let wakesSystem: Bool

        public init(alarm: Alarm, wakesSystem: Bool) {
            self.alarm = alarm
            self.wakesSystem = wakesSystem
        }
    }

    public func write(_ alarm: Alarm, oton: String, userManagerWakes: Bool) throws(Failure) {
        try write(
            timer: alarm.timerName, AlarmUnitText.timer(alarm, userManagerWakes: userManagerWakes),
            service: alarm.serviceName, AlarmUnitText.service(alarm, oton: oton))
    }

    /// The alarms oton wrote here (in the system folder: only `user`'s, when given), by number.
    public func alarms(user: String? = nil) -> [ListedAlarm] {
        timerTexts(prefix: SystemdUnitName.alarmPrefix).compactMap { entry -> ListedAlarm? in
            guard let alarm = AlarmUnitText.alarm(fromTimer: entry.text), entry.name == alarm.timerName else { return nil }
            if let user, case let .system(owner, _) = alarm.placement, owner != user { return nil }
            return ListedAlarm(alarm: alarm, wakesSystem: AlarmUnitText.wakesSystem(timer: entry.text))
        }.sorted { $0.alarm.number < $1.alarm.number }
    }

    /// Removes alarm N's timer, service and enabling link; false when none was there.
    public func remove(alarm number: Int) -> Bool {
        remove(timer: SystemdUnitName.alarmTimer(number), service: SystemdUnitName.alarmService(number))
    }
}
