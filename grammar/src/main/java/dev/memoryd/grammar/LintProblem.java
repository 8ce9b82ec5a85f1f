package dev.memoryd.grammar;

/**
 * One lint finding.
 *
 * @param path    repository-relative path of the file
 * @param line    1-based line the problem is reported at
 * @param rule    stable rule id (see {@link Linter})
 * @param message human-readable explanation
 */
public record LintProblem(String path, int line, String rule, String message) {}
