/**
 * How people answer a proposed plan, written the way they do (not from the
 * classifier's vocabulary): one reply per line, grouped by what the reply
 * means and the language it is in. The planner's classifier must place
 * every one (see reply-table.test.ts, which prints the accuracy per class).
 */
import type { PlanConfirmationClass } from '../../runtime/planning/plan-records.js';

export type TableClass = PlanConfirmationClass | 'new_request';

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

export const REPLY_TABLE: Readonly<Record<TableClass, { en: string[]; es: string[] }>> = {
  plan_confirmed: {
    en: lines(`
      yes
      Yes, go ahead.
      yeah do it
      yep, sounds good
      sure thing
      ok let's go
      Okay, run it.
      go ahead and run it
      Go for it!
      I approve.
      I approve this plan
      approved, thanks
      I accept the plan
      accept
      looks good to me, proceed
      LGTM 👍
      👍
      ✅ approved
      Perfect, execute it
      Great plan, let's do this
      sounds great, please proceed
      That works for me
      fine by me
      All good, go ahead
      confirmed
      I confirm
      Yes please, start it
      let's get started
      let's get going
      Please proceed with the plan.
      you can go ahead with the plan
      we can go ahead with this
      Go ahead with it
      I'd like to go ahead with this plan
      I want to approve it
      I would like to approve the plan
      I'll take it
      I like it, go
      love it!
      Do it please
      Just do it
      Ship it 🚀
      Yes yes, run the plan
      Absolutely, go ahead
      definitely
      Sure, you have my approval
      green light
      ok thanks
      Alright, let's do it
      yes, execute the plan
      This is great, thanks! Go ahead
      Looks great. Please run it.
      Sign off on it
      kick it off
      Yes sir
      Makes sense, go ahead
      ok ✅
      yes, that's fine
      Okay, go on then
      yes, let's go with it
      OK, proceed with it
      Cool, go ahead
      yes, go with this plan
      Fine, run it
      Okay! Go ahead, thanks 🙏
      Yes — please proceed
      ok sí, adelante
      yes, dale
      That's fine, start it
    `),
    es: lines(`
      sí
      Sí, adelante
      sí, dale
      Dale, ejecútalo
      dale
      Vale, hazlo
      ok, adelante
      De acuerdo, procede
      Perfecto, ejecútalo
      lo apruebo
      Apruebo el plan
      apruébalo
      Apruébenlo por favor
      acepto
      Acepto la propuesta
      aceptado
      confirmo
      Confirmado, adelante
      Sí, por favor, ejecuta el plan
      claro que sí
      Por supuesto, hazlo
      me parece bien
      Me parece bien, sigue
      está bien
      Está perfecto, adelante
      Me gusta, dale
      genial, ejecútalo
      venga, vamos
      listo, empieza
      Hagámoslo
      hazlo ya
      Sí, continúa
      Sigue adelante con el plan
      puedes ejecutarlo
      Puedes seguir con el plan
      quiero aprobarlo
      Me gustaría aprobar el plan
      quiero que lo ejecutes
      Sí, lo apruebo
      Excelente, adelante
      Buen plan, ejecútalo
      todo bien, sigue
      Así está bien
      déjalo así, está perfecto
      tal cual, adelante
      correcto
      ejecuta el plan, gracias
      Sí, gracias
      👍 dale
      ok, dale
      Sí, ponlo en marcha
      Dale luz verde a esto
      Adelante con el plan
      Vamos, empieza ya
      Sí, acepto
      De acuerdo
      Claro, procede por favor
      Venga, hazlo
      ok perfecto
      sí, go ahead
      Okey, ejecútalo
      Sí señor, adelante
      Perfecto, gracias, ejecútalo
      Claro, adelante con ello
      Venga, lo apruebo
      Sí, continúa con el plan
      Ok, sigue con eso
      Me encanta, hazlo
      Bien, procede
    `),
  },
  plan_rejected: {
    en: lines(`
      no
      No.
      nope
      nah
      no thanks
      No, thank you
      cancel
      Cancel it.
      cancel the plan please
      Please cancel this
      I reject this plan
      I reject it
      reject
      rejected
      I turn this plan down
      I'm turning it down
      turn it down
      I decline
      I'll pass
      I'll pass on this one
      decline the plan
      Don't do it
      Please don't run it
      do not proceed
      don't execute this plan
      Let's not do this
      I don't approve
      I do not approve this
      I don't want to run this
      forget it
      forget about it
      never mind
      scrap it
      drop it
      stop
      abort
      no way
      Absolutely not
      Not really
      call it off
      Call off the plan
      no, cancel it
      No no no
      👎
      ❌
      no, I don't like it
      kill it
      Ditch the plan
      I don't accept this
      I don't accept
      No, please cancel
      that's a no
      Thanks, but no
      no, forget it
      I refuse this plan
      No, let's not
      Nope, cancel the plan
      I'd rather not
      no, scrap the plan
      I don't want this plan
      please don't
      Cancel, thanks
      no, never mind
      No, reject it
      no, no lo hagas
    `),
    es: lines(`
      no
      No, gracias
      no gracias
      cancela
      Cancélalo
      cancélalo por favor
      cancela el plan
      rechazo el plan
      rechazo esta propuesta
      Rechazo la propuesta
      lo rechazo
      rechazado
      no lo apruebo
      No lo ejecutes
      No lo hagas
      no hagas nada
      mejor no
      ni hablar
      de ninguna manera
      olvídalo
      Olvídalo, no hace falta
      déjalo
      descártalo
      anúlalo
      Anula el plan
      no quiero
      No quiero ejecutarlo
      no me gusta
      No me gusta, cancélalo
      para
      detente
      no, cancela
      No, no lo hagas
      Cancela todo
      Rechazo
      negativo
      no, rechazado
      👎 no
      Mejor cancélalo
      Quiero cancelarlo
      quiero cancelar el plan
      Me gustaría rechazar la propuesta
      No lo quiero
      No, olvídalo
      Cancelado
      Descarta el plan
      Digo que no
      no, gracias, cancela
      No acepto el plan
      No lo acepto
      no procedas
      nunca
      No, para
      Nada, cancélalo
      No, cancel it
      No, déjalo
      Mejor no, gracias
      Cancélalo todo
      No, descártalo
      Rechazo el plan, gracias
      no, olvida el plan
      No, no quiero
      No, no lo apruebo
      Cancela esto
    `),
  },
  plan_modify_requested: {
    en: lines(`
      I want to make a few changes
      I'd like to make some changes
      I would like to change a few things
      I want to change it
      change it
      Can we change the plan?
      Can I change something?
      I have some changes
      I'd like changes
      needs changes
      let me edit it
      modify
      Modify the plan
      edit the plan
      I want to adjust a few things
      tweak it a bit
      Let's tweak a couple of things
      Could you revise it?
      revise the plan please
      I want to modify it
      not quite, I want to change something
      Yes, but I'd like to change a few things
      No, I want to make some changes
      Changes please
      I'd like to adjust the plan
      Can you rework it?
      Please redo it
      Let me change a couple of things
      I need to change a thing or two
      We need to make a few adjustments
      I want to make a change
      I'd like to edit some steps
      Make some changes
      Rework the plan
      Can you try again?
      give me another plan
      Give me a different plan
      Let's rethink this
      I want to update the plan
      Fix it
      I'd like to change something
      Can you change it a bit?
      Let's make a few changes
      I want to change a couple of things
      I'd like some changes please
    `),
    es: lines(`
      quisiera ajustar algunas cosas
      Quiero hacer algunos cambios
      quiero cambiarlo
      cámbialo
      Cambia el plan
      Me gustaría modificar algunas cosas
      quiero modificar el plan
      modifícalo
      hay que cambiar algo
      Necesito cambios
      necesito hacer unos cambios
      quiero cambiar algo
      ¿Podemos cambiarlo?
      Edítalo
      ajústalo un poco
      Quisiera hacer un par de cambios
      Me gustaría cambiar unas cosas
      Revísalo por favor
      Sí, pero quiero cambiar algo
      No, quiero hacer cambios
      Cambios, por favor
      Quiero ajustar el plan
      Hay que ajustar algunos detalles
      tengo algunos cambios
      Quiero editar algunos pasos
      Hazme otro plan
      Dale otra vuelta
      Replantéalo
      Quisiera modificarlo
      Me gustaría hacer unos ajustes
      Hay que cambiarlo
      Necesito cambiar un par de cosas
      Cambia algo
      Corrígelo
      Mejóralo un poco
      Quiero retocar algunas cosas
      Puedes cambiarlo?
      Podrías modificarlo?
      Quiero otro plan
      Rehazlo
      Quiero cambiar un par de cosas
      Me gustaría hacer cambios
      Hay que modificar algunas cosas
      Quisiera editar el plan
      Podemos hacer unos ajustes?
    `),
  },
  plan_modify_feedback: {
    en: lines(`
      change step 2 to book a big hall
      Change step 2 to book a big hall, please.
      remove step 3
      Remove step 3 and add a review at the end
      add a review at the end
      Add a budget check before step 2
      add a step to confirm the date after step 1
      move step 3 before step 1
      Move the last step to the start
      swap steps 1 and 2
      Swap step 2 and step 3
      rename the objective to Summer offsite
      skip step two
      drop the second step
      delete the last step
      no, change step 2 to use email
      yes but add a review step
      ok but remove step 1
      Replace step 1 with "choose a date"
      step 2 should be book the hall
      instead of step 3, send an email
      Could you add a review at the end?
      I want to change step 2 to call the venue
      I'd like to remove step 3
      Please put step 1 last
      Do step 3 first
      Add catering after step 2 and remove step 4
      Get rid of step 1
      Take out the third step
      add coffee and snacks at the end
      also rent a car
      use email instead of SMS
      make it cheaper
      Make the first step shorter
      Can you include a dry run?
      I'd rather use Go instead of Python
      skip the hotel booking
      Add a final step: celebrate
      insert a review before the last step
      Change the second step to order pizza
      Please replace the last step with a team dinner
      Move step 2 after step 3
      Rename the objective to "Q3 launch"
      The objective should be Team building day
      Switch steps 3 and 4
      no step 3
      Add "send the report" at the beginning
      Put step 4 before step 2
      drop step 1, then add a kickoff call at the start
      Remove steps 2
      Change step 1 to pick two dates
      remove step 2 please
      Add a rain plan after step 3
      swap steps 2 and 4
      Move step 1 to the end
    `),
    es: lines(`
      cambia el paso 2 por reservar un salón grande
      Cambia el paso 2 a reservar un salón grande, por favor
      quita el paso 3
      Quita el paso 3 y añade una revisión al final
      añade una revisión al final
      Agrega una revisión antes del paso 2
      añade confirmar la fecha después del paso 1
      mueve el paso 3 antes del paso 1
      Mueve el último paso al principio
      intercambia los pasos 1 y 2
      Intercambia el paso 2 con el paso 3
      cambia el objetivo a Retiro de verano
      omite el segundo paso
      elimina el último paso
      no, cambia el paso 2 por usar correo
      sí, pero añade una revisión
      vale, pero quita el paso 1
      Reemplaza el paso 1 por "elegir una fecha"
      el paso 2 debe ser reservar el salón
      en vez del paso 3, manda un correo
      ¿Puedes añadir una revisión al final?
      Quiero cambiar el paso 2 por llamar al local
      Me gustaría quitar el paso 3
      Pon el paso 1 al final
      Borra el tercer paso
      Añade el catering después del paso 2 y quita el paso 4
      Sáltate el paso 1
      Saca el tercer paso
      añade café y galletas al final
      también alquila un coche
      usa correo en vez de SMS
      hazlo más barato
      Haz el primer paso más corto
      ¿Puedes incluir un ensayo?
      Prefiero usar Go en lugar de Python
      sáltate la reserva del hotel
      Añade un último paso: celebrar
      inserta una revisión antes del último paso
      Cambia el segundo paso por pedir pizza
      Reemplaza el último paso por una cena de equipo
      Mueve el paso 2 después del paso 3
      Renombra el objetivo a "Lanzamiento Q3"
      El objetivo debe ser Día de equipo
      Elimina la tarea 3
      sin el paso 3
      Añade al principio revisar el calendario
      Pon el paso 4 antes del paso 2
      quita el paso 1 y luego añade una llamada inicial al principio
      Agrega un paso para reservar transporte
      Cambia el orden de los pasos 1 y 2
      Cambia el paso 1 por elegir dos fechas
      quita el paso 2, por favor
      Añade un plan B después del paso 3
      intercambia los pasos 2 y 4
      Mueve el paso 1 al final
    `),
  },
  plan_unclear: {
    en: lines(`
      not yet
      Not yet, thanks
      I'm not sure
      not sure
      hmm, not sure yet
      maybe
      Maybe later
      let me think about it
      I need to think about it
      wait
      hold on
      Hang on a second
      one moment
      give me a minute
      I don't know
      idk
      not now
      Not right now
      ok, wait
      yes no
      ok no
      let me check first
      I'll get back to you
      Let me sleep on it
      Hmm 🤔
      Not today
      I haven't decided
      It depends
      perhaps
      don't cancel it
      Don't cancel it yet
      I'm not so sure
      wait, not yet
      Hold off for now
      ask me later
      Not sure, let me check
      maybe, I don't know
      Wait, let me think
      hmm, maybe later
      I'll think about it
    `),
    es: lines(`
      todavía no
      Aún no, gracias
      no estoy seguro
      No estoy segura
      quizás
      Tal vez más tarde
      déjame pensarlo
      Lo voy a pensar
      espera
      Espera un momento
      un momento
      dame un minuto
      no sé
      No lo sé
      ahora no
      Ahorita no
      sí no
      ok no, espera
      déjame revisarlo
      ya te aviso
      Luego vemos
      hoy no
      Depende
      a lo mejor
      No lo canceles
      no lo canceles todavía
      No estoy convencido
      Tengo dudas
      mmm, no sé
      Puede ser
      necesito pensarlo
      Dame tiempo
      no sé qué decir
      Todavía no lo sé
      un segundo
      No sé, déjame ver
      Quizás, no estoy seguro
      Espera, déjame pensarlo
      mmm, tal vez
      Lo pensaré
    `),
  },
  new_request: {
    en: lines(`
      what's the weather in Paris?
      book a flight to Rome
      tell me a joke
      Who won the game last night?
      How do I reset my password?
      Summarise this article for me
      What time is it in Tokyo?
      translate hello into French
      write a poem about the sea
      Find me a good pizza place nearby
      how much is a ticket to Lisbon
      Organise a birthday party for Sam
      What is the capital of Australia?
      Remind me to call mom tomorrow
      order more printer paper
      Who are you?
      What can you do?
      plan a hiking trip
      Send the invoice to Acme
      hi there
      good morning
      How are you?
      Explain quantum computing
      Compare Python and Go
      list my meetings today
    `),
    es: lines(`
      ¿Qué tiempo hace en Madrid?
      reserva un hotel en Lisboa
      cuéntame un chiste
      ¿Quién ganó el partido?
      ¿Cómo cambio mi contraseña?
      Resume este artículo
      ¿Qué hora es en Tokio?
      traduce hola al inglés
      escribe un poema sobre el mar
      Busca un restaurante cerca
      ¿Cuánto cuesta un billete a Roma?
      Organiza una fiesta de cumpleaños
      ¿Cuál es la capital de Chile?
      Recuérdame llamar a mamá mañana
      pide más papel para la impresora
      ¿Quién eres?
      ¿Qué sabes hacer?
      planifica una excursión
      Envía la factura a Acme
      hola
      buenos días
      ¿Cómo estás?
      Explica la computación cuántica
      Compara Python y Go
      muéstrame mis reuniones de hoy
    `),
  },
};

/**
 * Replies while the planner waits to hear what to change: changes without
 * a cue are changes, but a decision is still a decision.
 */
export const AWAITING_TABLE: Readonly<Record<TableClass, string[]>> = {
  plan_confirmed: lines(`
    yes
    actually it's fine, go ahead
    Sí, adelante
    ok, run it as it is
    Ejecútalo así
  `),
  plan_rejected: lines(`
    no, cancel it
    forget it
    cancélalo
    olvídalo
  `),
  plan_modify_requested: lines(`
    change it
    I want to make a few changes
    quiero hacer cambios
  `),
  plan_modify_feedback: lines(`
    make it shorter and cheaper
    Focus on budget hotels in Rome
    the hall should be bigger
    hazlo más barato
    el salón tiene que ser más grande
    book a flight to Rome
    fewer steps
    menos pasos
  `),
  plan_unclear: lines(`
    not sure yet
    todavía no sé
  `),
  new_request: [],
};
