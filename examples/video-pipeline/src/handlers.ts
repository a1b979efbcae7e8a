// The worker code of `video.render`: one unit per scene, progress per scene and step.
import { defineHandler } from '@sluice/worker';
import { concatScenes, verifyAndPublish, type Assembled } from './assemble.js';
import { videoRender } from './jobs.js';
import { STYLES, type PipelineOptions, type Style } from './options.js';
import { renderScene, type SceneResult } from './render-scene.js';
import { planScenes, type SceneUnit } from './script.js';

function handlerFor(o: PipelineOptions, style: Style) {
  return defineHandler<typeof videoRender, SceneUnit, SceneResult, Assembled>(videoRender, {
    prepare: (ctx) => planScenes(ctx.input),
    execute: (unit, ctx) => renderScene(unit.input, ctx, o, style),
    apply: (results, ctx) => concatScenes(results, ctx, o),
    finalize: (assembled, ctx) => verifyAndPublish(assembled, ctx, o),
  });
}

export function createVideoHandlers(o: PipelineOptions) {
  return {
    [videoRender.kind]: { v1: handlerFor(o, STYLES.v1), v2: handlerFor(o, STYLES.v2) },
  };
}
