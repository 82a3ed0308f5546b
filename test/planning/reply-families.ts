/**
 * Replies to a proposed plan in the families issue 38 found wrong, written
 * for this table (the issue's own illustrations are kept apart, in
 * issue-38-held-out.test.ts). Each family has the class its replies must get
 * and whether a change is being awaited when they arrive.
 */
import type { TableClass } from './reply-table.js';

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

export interface ReplyFamily {
  expected: TableClass;
  /** The planner has asked what to change and waits for it. */
  awaiting: boolean;
  en: string[];
  es: string[];
}

export const REPLY_FAMILIES: Readonly<Record<string, ReplyFamily>> = {
  'rejection with a reason': {
    expected: 'plan_rejected',
    awaiting: false,
    en: lines(`
      no, we already booked everything ourselves
      nope, someone else is handling it
      no, the trip got cancelled
      no thanks, I figured it out
      no, I changed my mind about the whole thing
      nah, we went with a different option
      no, it's too expensive
      no, we won't need it after all
      no, I already sorted it out
      no, my manager said we're not doing this
      no, that's not what I asked for
      no, the event was called off
      nope, not needed anymore
      no, I'll take care of it myself
      no, we decided against it
      no thanks, already done
    `),
    es: lines(`
      no, ya lo hicimos nosotros
      no, ya no lo necesito
      no, al final no vamos
      no gracias, ya lo solucioné
      no, cambié de opinión
      no, encontramos otra manera
      no, es demasiado caro
      no, se canceló el viaje
      no, otra persona se encarga
      no, ya está resuelto
      no, me encargo yo
      no, eso no es lo que pedí
      no, ya no hace falta, gracias
      nop, ya no vamos
      no, preferimos no hacerlo
      no, lo dejamos para otro año
    `),
  },
  'wish to change': {
    expected: 'plan_modify_requested',
    awaiting: false,
    en: lines(`
      wait, I'd like to tweak a couple of things
      hang on, I want to make some changes
      hold on a sec, I need to change something first
      one moment, let me adjust it a bit
      wait, let me rework a few things
      not yet, I want to change something
      hmm, I'd like to revise it a little
      before you run it, I want to change a few things
      give me a second, I want to edit a couple of things
      wait wait, I need to make a change
      hold on, I'd like to modify it
      let me tweak it first
      stop, I want to change something
      hang on, I have a few changes
      hold up, some changes first
      wait, can I change something?
    `),
    es: lines(`
      espera, quiero ajustar un par de cosas
      un momento, quiero hacer unos cambios
      déjame modificar algo primero
      espera, tengo que cambiar algo
      aguarda, quisiera retocar el plan
      todavía no, quiero cambiar algunas cosas
      un segundo, déjame editarlo un poco
      espera, me gustaría modificarlo
      antes de ejecutarlo quiero cambiar algo
      espérate, quiero hacer un cambio
      momento, déjame ajustarlo
      para, quiero cambiar una cosa
      espera, necesito hacer unos ajustes
      déjame retocarlo antes
      espera, hay que cambiar algo
      un momento, quisiera hacer algunos cambios
    `),
  },
  'approval while a change is awaited': {
    expected: 'plan_confirmed',
    awaiting: true,
    en: lines(`
      never mind, just run it as it is
      forget the changes, run it
      scratch that, go ahead with the plan
      leave it as it is and execute it
      on second thought, it's fine, proceed
      no changes, just go
      forget what I said, run it
      ok forget it, do it
      ignore that, go ahead
      actually never mind, approve it
      leave it, it's fine
      nothing to change, run it
      forget it, proceed
      no changes needed, go ahead
      never mind, execute the plan
    `),
    es: lines(`
      olvídalo, ejecútalo así
      déjalo como está y ejecútalo
      da igual, adelante
      no importa, hazlo así
      olvida los cambios, dale
      pensándolo bien, está bien así, adelante
      sin cambios, ejecútalo
      ignora eso, sigue con el plan
      olvida lo que dije, adelante
      mejor déjalo así y ejecútalo
      bueno, déjalo, dale
      nada, ejecútalo tal cual
      déjalo, está bien así
      olvídalo, procede
      no cambies nada, ejecútalo
    `),
  },
  'rejection while a change is awaited': {
    expected: 'plan_rejected',
    awaiting: true,
    en: lines(`
      no, just cancel everything
      actually, cancel the whole thing
      forget it, don't run anything
      never mind, cancel the plan
      no, drop the whole plan
      scrap it all
      no, I don't want any of it anymore
      forget the whole thing
      no, we found a better way
      cancel it all, please
      no, it's not needed anymore
      never mind, I'll do it myself
      no thanks, cancel
      just cancel it
      no, abort
    `),
    es: lines(`
      olvídalo, no lo ejecutes
      da igual, cancélalo
      no, cancela el plan entero
      mejor cancélalo todo
      no, ya no lo necesito
      déjalo, cancélalo
      no, ya lo resolví yo
      cancela todo, gracias
      no, olvida el plan
      no, ya no hace falta
      olvídalo todo
      cancélalo, ya no vamos
      no, no lo hagas
      no, descártalo
      no, mejor no lo hagas
    `),
  },
};
