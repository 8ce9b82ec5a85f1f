package dev.memoryd.daemon.doctor;

/**
 * One check {@code doctor} made: its name, whether it passed, what it found (one sentence) and,
 * for a problem, the command that fixes it (null when it passed or was not made).
 */
public record Finding(String check, Status status, String message, String fix) {
    /** A check's result. */
    public enum Status {
        OK,
        PROBLEM,
        /** Not made: something it needs is missing (that is reported by its own finding). */
        NOT_CHECKED
    }

    static Finding ok(String check, String message) {
        return new Finding(check, Status.OK, message, null);
    }

    static Finding problem(String check, String message, String fix) {
        return new Finding(check, Status.PROBLEM, message, fix);
    }

    static Finding notChecked(String check, String message) {
        return new Finding(check, Status.NOT_CHECKED, message, null);
    }
}
