package dev.memoryd.daemon.rpc;

import dev.memoryd.daemon.rpc.catalogue.MethodCatalogue;
import dev.memoryd.daemon.rpc.catalogue.MethodSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The method table the dispatcher routes by: exactly the catalogue's methods, each served by the
 * namespace of its group. Built once; a route outside the catalogue, a catalogue method with no
 * route, or a route in the wrong group is an {@link IllegalStateException} at construction, so a
 * daemon never starts with the catalogue and its handlers out of step.
 */
final class Routes {
    private final MethodCatalogue catalogue;
    private final Map<String, Handler> table;

    private Routes(MethodCatalogue catalogue, Map<String, Handler> table) {
        this.catalogue = catalogue;
        this.table = table;
    }

    static Routes build(MethodCatalogue catalogue, List<Namespace> namespaces) {
        Map<String, Handler> table = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (Namespace ns : namespaces) {
            ns.routes().forEach((name, h) -> {
                MethodSpec spec = catalogue.find(name).orElse(null);
                if (spec == null) {
                    problems.add(name + " is routed by " + ns.group() + " but not in the catalogue");
                } else if (!spec.group().equals(ns.group())) {
                    problems.add(
                            name + " is routed by " + ns.group() + " but the catalogue puts it in " + spec.group());
                } else if (table.put(name, h) != null) {
                    problems.add(name + " is routed twice");
                }
            });
        }
        for (String name : catalogue.names()) {
            if (!table.containsKey(name)) {
                problems.add(name + " is in the catalogue but has no route");
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("catalogue and handlers disagree: " + String.join("; ", problems));
        }
        return new Routes(catalogue, table);
    }

    /** The handler of {@code method}, or null for a method the protocol does not have. */
    Handler find(String method) {
        return table.get(method);
    }

    /**
     * Whether {@code method} reads what writes leave, so it must see every write answered before
     * it: the read-only methods, except {@code ping}, which reports the writer's state and so must
     * answer while the writer cannot publish.
     */
    boolean seesWrites(String method) {
        return !"ping".equals(method)
                && catalogue.find(method).map(MethodSpec::readOnly).orElse(false);
    }

    /** The routed method names, in catalogue order. */
    List<String> names() {
        return catalogue.names();
    }
}
