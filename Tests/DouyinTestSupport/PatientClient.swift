import DouyinAPI

extension APIClient.Configuration {
    /// The defaults with 600 s per attempt instead of 15: in the tests a deadline is a guard
    /// against a hang, never what they check unless they set their own. A whole-suite pass on
    /// two cores has stood still for 80 s, and a 15 s deadline (a dispatch timer, which fires
    /// however late the rest runs) can then fail a call the backend answers correctly.
    public static var patient: Self {
        var configuration = Self()
        configuration.timeout = .seconds(600)
        return configuration
    }
}
