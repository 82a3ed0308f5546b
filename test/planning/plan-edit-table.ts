/**
 * Plan edits the way people write them, by family and language, each with
 * the plan it must give. Written for this table (the illustrations
 * live apart, in issue-38-held-out.test.ts, so they stay a fair check).
 *
 * Expected plans are written with letters for the steps as they were (A is
 * step 1 of the plan) and quotes for new texts: `A "Call the venue" B C`.
 * `ERR` means applying the edit must fail and change nothing; `ASK 1 2` means
 * the parser must ask which step, with those candidates (`ASK` alone: none
 * matched); `UNPLACED` means it must leave the reply to a model or the
 * person, adding nothing.
 */

export const PLAN_EN = ['Pick a venue', 'Send the invitations', 'Order the catering', 'Hire a photographer', 'Print the name badges'];
export const PLAN_ES = ['Elegir el local', 'Enviar las invitaciones', 'Pedir el catering', 'Contratar un fotógrafo', 'Imprimir las acreditaciones'];
/** Two steps share their content words: a reference to "the hotel" is ambiguous. */
export const PLAN_TWIN = ['Book the hotel in Rome', 'Book the hotel in Florence', 'Rent a car', 'Buy travel insurance'];

export type EditFamily = 'several steps' | 'ordinals and positions' | 'by content' | 'between' | 'verbs and frames' | 'asks, never guesses';
export type EditCase = readonly [reply: string, expected: string];

const cases = (text: string): EditCase[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [reply = '', expected = ''] = line.split(' => ');
      return [reply.trim(), expected.trim()] as const;
    });

/** Per family: replies on PLAN_EN (`en`), on PLAN_ES (`es`), and on PLAN_TWIN (`twin`, both languages). */
export const EDIT_TABLE: Readonly<Record<EditFamily, { plan: readonly string[]; en: EditCase[]; es: EditCase[] }>> = {
  'several steps': {
    plan: PLAN_EN,
    en: cases(`
      remove steps 2 and 5 => A C D
      delete steps 1, 3 and 4 => B E
      drop steps 2-4 => A E
      skip steps 3 through 5 => A B
      get rid of the last two => A B C
      remove the first two steps => C D E
      take out steps two and four => A C E
      scrap the second and the third => A D E
      delete step 1 and step 5 => B C D
      drop the first and the last => B C D
      remove the photographer and the badges => A B C
      skip the invitations and the catering steps => A D E
      move steps 4 and 5 to the top => D E A B C
      put steps 1 and 2 at the end => C D E A B
      remove steps 4 & 5 => A B C
      cut steps 2 to 3 => A D E
    `),
    es: cases(`
      quita los pasos 1 y 2 => C D E
      elimina los pasos 2, 3 y 5 => A D
      borra del 3 al 5 => A B
      sáltate los dos primeros => C D E
      quita los dos últimos pasos => A B C
      elimina el primero y el último => B C D
      borra los pasos dos y cuatro => A C E
      quita las tareas 4 y 5 => A B C
      omite los pasos 2-3 => A D E
      saca lo del fotógrafo y lo de las acreditaciones => A B C
      mueve los pasos 4 y 5 al principio => D E A B C
      pon los pasos 1 y 2 al final => C D E A B
      elimina el segundo y el tercero => A D E
      descarta los pasos 1 y 3 => B D E
      quita el paso 2 y el paso 4 => A C E
      borra las invitaciones y el catering => A D E
    `),
  },
  'ordinals and positions': {
    plan: PLAN_EN,
    en: cases(`
      remove the second step => A C D E
      drop the last one => A B C D
      skip the penultimate step => A B C E
      swap the first and the last => E B C D A
      move the third one to the top => C A B D E
      put the first step last => B C D E A
      exchange the second with the fourth => A D C B E
      delete the fourth => A B C E
      move the last step before the second one => A E B C D
      change the first one to book the venue => "Book the venue" B C D E
      swap the second to last and the last => A B C E D
      move the 2nd step after the 4th => A C D B E
      the last step should be print the menus => A B C D "Print the menus"
      get rid of the third one => A B D E
      put the last one first => E A B C D
      switch the first two => B A C D E
    `),
    es: cases(`
      quita el segundo => A C D E
      elimina el último => A B C D
      intercambia el primero y el tercero => C B A D E
      pon el último al principio => E A B C D
      mueve el primero al final => B C D E A
      borra el penúltimo => A B C E
      el tercero debe ser pedir pizzas => A B "Pedir pizzas" D E
      cambia el cuarto por contratar un vídeo => A B C "Contratar un vídeo" E
      sáltate la primera tarea => B C D E
      mueve el quinto antes del segundo => A E B C D
      intercambia el segundo con el último => A E C D B
      pon el segundo paso después del cuarto => A C D B E
      quita la tercera => A B D E
      que el último paso sea repartir las acreditaciones => A B C D "Repartir las acreditaciones"
      pon el tercero primero => C A B D E
      intercambia los dos primeros => B A C D E
    `),
  },
  'by content': {
    plan: PLAN_EN,
    en: cases(`
      remove the photographer one => A B C E
      skip the step about the badges => A B C D
      drop sending the invitations => A C D E
      delete the catering => A B D E
      get rid of hiring the photographer => A B C E
      move the badges to the top => E A B C D
      put the catering first => C A B D E
      swap the venue and the catering => C B A D E
      change the photographer step to hire a videographer => A B C "Hire a videographer" E
      instead of the catering, do a potluck => A B "A potluck" D E
      the badges before the invitations => A E B C D
      move printing the badges after picking the venue => A E B C D
      we don't need the photographer => A B C E
      the invitations can go => A C D E
      take the catering out => A B D E
      scrap the name badges => A B C D
    `),
    es: cases(`
      quita lo del fotógrafo => A B C E
      elimina lo de las acreditaciones => A B C D
      sáltate el catering => A B D E
      borra lo de enviar las invitaciones => A C D E
      pon lo del catering al principio => C A B D E
      mueve el local al final => B C D E A
      intercambia el local y el fotógrafo => D B C A E
      cambia lo del fotógrafo por contratar un videógrafo => A B C "Contratar un videógrafo" E
      en vez del catering, haz una comida compartida => A B "Una comida compartida" D E
      lo de las invitaciones antes que lo del local => B A C D E
      ya no necesito el fotógrafo => A B C E
      el catering sobra => A B D E
      descarta lo de imprimir => A B C D
      pon el fotógrafo primero => D A B C E
      quita la parte del local => B C D E
      saca lo de contratar al fotógrafo => A B C E
    `),
  },
  between: {
    plan: PLAN_EN,
    en: cases(`
      add confirm the headcount between steps 2 and 3 => A B "Confirm the headcount" C D E
      insert a budget review between step 1 and step 2 => A "A budget review" B C D E
      put a site visit between the venue and the invitations => A "A site visit" B C D E
      add a tasting in between the catering and the photographer => A B C "A tasting" D E
      add test the projector between the fourth and the fifth => A B C D "Test the projector" E
      include a reminder email between steps 2 and 3 => A B "A reminder email" C D E
      add a step to book a DJ between 3 and 4 => A B C "Book a DJ" D E
      move the badges between the venue and the invitations => A E B C D
      move step 5 between steps 1 and 2 => A E B C D
      put the photographer between the first and the second step => A D B C E
      add arrange parking between steps 4 and 5 => A B C D "Arrange parking" E
      add a rehearsal between the invitations and the catering => A B "A rehearsal" C D E
      insert check the menu between the catering and the photographer => A B C "Check the menu" D E
      add a site visit between steps 1 and 3 => ERR
      add sign the contract between step one and step two => A "Sign the contract" B C D E
      add order flowers between the second and third steps => A B "Order flowers" C D E
    `),
    es: cases(`
      añade confirmar asistentes entre los pasos 2 y 3 => A B "Confirmar asistentes" C D E
      agrega una visita al local entre el paso 1 y el paso 2 => A "Una visita al local" B C D E
      mete una prueba de sonido entre el 4 y el 5 => A B C D "Una prueba de sonido" E
      inserta revisar el presupuesto entre el primero y el segundo => A "Revisar el presupuesto" B C D E
      pon una degustación entre el catering y el fotógrafo => A B C "Una degustación" D E
      añade firmar el contrato entre los pasos uno y dos => A "Firmar el contrato" B C D E
      mueve las acreditaciones entre el local y las invitaciones => A E B C D
      mueve el paso 5 entre los pasos 1 y 2 => A E B C D
      pon el fotógrafo entre el primero y el segundo => A D B C E
      añade un ensayo entre las invitaciones y el catering => A B "Un ensayo" C D E
      agrega llamar al proveedor entre el tercero y el cuarto => A B C "Llamar al proveedor" D E
      añade reservar aparcamiento entre los pasos 4 y 5 => A B C D "Reservar aparcamiento" E
      incluye una reunión entre el paso 2 y el 3 => A B "Una reunión" C D E
      añade algo entre los pasos 1 y 4 => ERR
      agrega comprar flores entre el segundo y el tercero => A B "Comprar flores" C D E
      inserta un descanso entre la tarea 3 y la tarea 4 => A B C "Un descanso" D E
    `),
  },
  'verbs and frames': {
    plan: PLAN_EN,
    en: cases(`
      put step 3 first => C A B D E
      move the invitations to the end => A C D E B
      bring step 4 to the top => D A B C E
      make step 2 an email blast => A "An email blast" C D E
      step 4 should be hire a band => A B C "Hire a band" E
      instead of step 3, order pizzas => A B "Order pizzas" D E
      hire a videographer instead of the photographer => A B C "Hire a videographer" E
      the catering before the invitations => A C B D E
      remove step 5, then put step 4 first => D A B C
      drop the badges and move the catering to the top => C A B D
      swap 1 and 2, then delete the last one => B A C D
      scrap step 2, put the photographer first and add a thank-you note at the end => D A C E "A thank-you note"
      get rid of step 1 then add a welcome speech at the start => "A welcome speech" B C D E
      take out the invitations => A C D E
      move the photographer to the end of the list => A B C E D
      do the badges first => E A B C D
      hire the photographer first => D A B C E
    `),
    es: cases(`
      pon el paso 3 al principio => C A B D E
      mueve las invitaciones al final => A C D E B
      sube el paso 4 arriba del todo => D A B C E
      que el paso 2 sea enviar un correo => A "Enviar un correo" C D E
      el paso 4 debería ser contratar una banda => A B C "Contratar una banda" E
      en vez del paso 3, pide pizzas => A B "Pide pizzas" D E
      contrata un videógrafo en lugar del fotógrafo => A B C "Contrata un videógrafo" E
      el catering antes que las invitaciones => A C B D E
      quita el paso 5 y luego pon el 4 primero => D A B C
      borra las acreditaciones y mueve el catering al principio => C A B D
      intercambia el 1 y el 2, luego elimina el último => B A C D
      elimina el paso 2, pon el fotógrafo primero y añade una nota de agradecimiento al final => D A C E "Una nota de agradecimiento"
      quita el paso 1 y después añade un discurso de bienvenida al principio => "Un discurso de bienvenida" B C D E
      saca las invitaciones => A C D E
      mueve el fotógrafo al final de la lista => A B C E D
      haz las acreditaciones primero => E A B C D
      pide el catering primero => C A B D E
    `),
  },
  'asks, never guesses': {
    plan: PLAN_TWIN,
    en: cases(`
      remove the hotel => ASK 1 2
      skip the hotel one => ASK 1 2
      move the hotel to the end => ASK 1 2
      swap the hotel and the car => ASK 1 2
      delete the boat => ASK
      add a call before the boat => ASK
      remove step 2 and the hotel => ASK 1 2
      change the hotel booking to a hostel => ASK 1 2
      remove the rome hotel => B C D
      drop the florence one => A C D
      add call the hotel between steps 1 and 3 => ERR
      remove steps 1 and 7 => ERR
      make the hotel cheaper => UNPLACED
      add a review after the hotel => ASK 1 2
      put the hotel first => ASK 1 2
      skip booking => ASK 1 2
      put the boat first => ASK
    `),
    es: cases(`
      quita lo del hotel => ASK 1 2
      mueve lo del hotel al final => ASK 1 2
      borra el hotel => ASK 1 2
      intercambia el hotel y el coche => ASK 1 2
      elimina lo del barco => ASK
      añade llamar antes del barco => ASK
      quita el paso 3 y lo del hotel => ASK 1 2
      cambia lo del hotel por un hostal => ASK 1 2
      quita el hotel de Roma => B C D
      sáltate lo de Florencia => A C D
      añade llamar entre los pasos 1 y 3 => ERR
      quita los pasos 1 y 9 => ERR
      haz el hotel más barato => UNPLACED
      añade una revisión después del hotel => ASK 1 2
      pon el hotel primero => ASK 1 2
      pon lo del hotel antes que el coche => ASK 1 2
      pon el barco primero => ASK
    `),
  },
};
