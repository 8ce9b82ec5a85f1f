package dev.memoryd.daemon.rpc;

import java.util.Map;

/**
 * The handlers of one catalogue group ({@code group} in methods.yaml), one class per group.
 * Building the routes must not call the service: the dispatcher builds them before it serves.
 */
interface Namespace {
    /** The catalogue group it serves. */
    String group();

    /** Method name to handler, for every method of its group. */
    Map<String, Handler> routes();
}
