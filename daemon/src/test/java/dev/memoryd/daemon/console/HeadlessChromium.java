package dev.memoryd.daemon.console;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The system's Chromium, headless, driven through the system's chromedriver (named explicitly:
 * Selenium Manager's download cannot work on a machine without that network). A missing browser
 * fails the test, saying how to install it; it never skips it.
 */
final class HeadlessChromium implements AutoCloseable {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

    final ChromeDriver driver;
    private final ChromeDriverService service;
    private final Path profile;

    private HeadlessChromium(ChromeDriver driver, ChromeDriverService service, Path profile) {
        this.driver = driver;
        this.service = service;
        this.profile = profile;
    }

    static HeadlessChromium start() throws IOException {
        for (Path p : new Path[] {CHROMIUM, CHROMEDRIVER}) {
            if (!Files.isExecutable(p)) {
                fail(
                        p + " is missing: the console's browser tests need Debian's chromium and chromium-driver;"
                                + " run .ci/run (it installs them with apt-get) or apt-get install -y chromium chromium-driver");
            }
        }
        Path profile = Files.createTempDirectory("memoryd-console-chromium");
        ChromeOptions o = new ChromeOptions();
        o.setBinary(CHROMIUM.toFile());
        o.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1280,800",
                "--user-data-dir=" + profile,
                // A page's document must stay the one chromedriver found it in: no swap of the renderer's
                // document or browsing instance after a navigation (it made element ids and screenshots
                // fail with "does not belong to the document" / "aborted by navigation" under load).
                "--disable-features=RenderDocument,BackForwardCache,ProactivelySwapBrowsingInstance",
                "--disable-site-isolation-trials");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .withTimeout(Duration.ofSeconds(60))
                .build();
        ChromeDriver driver = new ChromeDriver(service, o);
        driver.manage().window().setSize(new Dimension(1280, 800));
        // the window's size counts the browser's own frame: grow it by that much so pages see 1280x800
        long inner = (Long) driver.executeScript("return window.innerHeight;");
        long innerWidth = (Long) driver.executeScript("return window.innerWidth;");
        driver.manage().window().setSize(new Dimension((int) (1280 + 1280 - innerWidth), (int) (800 + 800 - inner)));
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        return new HeadlessChromium(driver, service, profile);
    }

    /** Saves what the browser shows now as {@code target/console-screenshots/<name>.png}. */
    void screenshot(String name) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        byte[] png;
        for (int attempt = 1; ; attempt++) {
            try {
                png = driver.getScreenshotAs(OutputType.BYTES);
                break;
            } catch (org.openqa.selenium.WebDriverException e) {
                // Taking a picture changes nothing: a capture the browser abandoned is taken again.
                if (attempt == 3) {
                    throw e;
                }
            }
        }
        Files.write(SCREENSHOTS.resolve(name + ".png"), png);
    }

    @Override
    public void close() throws IOException {
        try {
            driver.quit();
        } finally {
            service.stop();
            deleteTree(profile.toFile());
        }
    }

    private static void deleteTree(File f) {
        File[] kids = f.listFiles();
        if (kids != null) {
            for (File k : kids) {
                deleteTree(k);
            }
        }
        f.delete();
    }
}
