package dev.memoryd.daemon.console;

import java.io.IOException;

/** One route's handler: a request the guard let through, to a response. */
@FunctionalInterface
interface Page {
    Response handle(Req r) throws IOException;
}
