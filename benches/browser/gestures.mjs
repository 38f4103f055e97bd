// What the browser benchmarks do to the page, in one place so that their
// figures come from the same gestures (run.mjs, issue6.mjs).

/** Resolves after the page's next frame is painted. */
export const nextFrame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));

/**
 * Zooms in around the plot's middle (wheel), pans both ways (a mouse drag),
 * zooms back out: `steps` frames in all, one per event. Resolves to the
 * page's performance.now() when it began (redraws are read from then on).
 */
export async function panZoom(page, steps) {
  const box = await page.locator('#plot').boundingBox();
  const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
  const t0 = await page.evaluate(() => performance.now());
  await page.mouse.move(x, y);
  for (let i = 0; i < steps / 4; i++) { await page.mouse.wheel(0, -120); await nextFrame(page); }
  await page.mouse.down();
  for (let i = 1; i <= steps / 4; i++) { await page.mouse.move(x + i * 12, y); await nextFrame(page); }
  for (let i = steps / 4 - 1; i >= -steps / 4; i--) { await page.mouse.move(x + i * 12, y); await nextFrame(page); }
  await page.mouse.up();
  for (let i = 0; i < steps / 4; i++) { await page.mouse.wheel(0, 120); await nextFrame(page); }
  return t0;
}
